// Fixture for the include-direction check: this include must make it fail.
#include "tools/detect/detect.h"
#include "recorder/recorder.h"
