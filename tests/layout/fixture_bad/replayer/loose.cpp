// Directly in replayer/, which only holds its floors.
int loose() { return 0; }
