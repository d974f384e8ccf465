// A clean file beside the bad ones: it must not be reported.
#pragma once
#include "base/status.h"
