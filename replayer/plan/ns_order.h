// SPDX-License-Identifier: Apache-2.0
// Which of two overlapping calls on one path went first, read from their
// results. The dependency builder keys ops by enter time; when two calls on
// a path overlapped (one entered while the other was inside the kernel), the
// enter order need not be the order in which they saw each other's effect:
// a mkdir(d/x) that entered after mkdir(d) entered may still have failed with
// ENOENT because d did not exist yet. The results say which order the kernel
// applied; this header decides it so that the replay keeps it.
#pragma once

#include <cstdint>

#include "traces/event.h"

namespace fsr {

// What a call did to a name, when it succeeded.
enum class NsEffect : uint8_t { kNone, kCreate, kRemove };
// What a call found the name to be before its own effect.
enum class NsSeen : uint8_t { kUnknown, kAbsent, kPresent };

// How call `e` relates to a name: as its path[k] itself (`direct`), or as the
// directory that holds its path[k] (the name is path[k]'s parent).
NsEffect ns_effect(const Event& e, int k, bool direct);
NsSeen ns_seen(const Event& e, int k, bool direct);

// For two calls on one name: +1 when `a` went first, -1 when `b` did, 0 when
// the results do not tell (neither changed the name, or neither observed it).
int ns_first(NsEffect a_effect, NsSeen a_seen, NsEffect b_effect, NsSeen b_seen);

}  // namespace fsr
