// Against the arrows: the planner reaching up into detect/ and the recorder.
#include "detect/detect.h"
#include "recorder/bpf/recorder.h"
