// An include of a folder that is no room.
#include "nowhere/thing.h"
