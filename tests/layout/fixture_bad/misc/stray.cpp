// In no room.
int stray() { return 0; }
