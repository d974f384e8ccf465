// Against the arrows: the floor including what stands on it.
#pragma once
#include "traces/trace_model.h"
