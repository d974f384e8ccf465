// Fixture for the include-direction check: a clean file beside the bad one.
#pragma once
#include "traces/status.h"
