// Lexical path helpers for the recorder's path resolution. They never touch
// the file system (the recorded state is gone by the time events are decoded)
// and never allocate once `out` has grown.
#pragma once

#include <string>
#include <string_view>

namespace fsr {

// out = normalize(base + "/" + rel), or normalize(rel) when rel is absolute.
// "." and empty components vanish, ".." removes one component (lexically: a
// symlinked directory followed by ".." resolves differently in the kernel).
void join_path(std::string& out, std::string_view base, std::string_view rel);

}  // namespace fsr
