#include "recorder/path_util.h"

namespace fsr {
namespace {

void append_normalized(std::string& out, std::string_view p) {
  size_t i = 0;
  while (i < p.size()) {
    while (i < p.size() && p[i] == '/') ++i;
    size_t j = i;
    while (j < p.size() && p[j] != '/') ++j;
    std::string_view comp = p.substr(i, j - i);
    i = j;
    if (comp.empty() || comp == ".") continue;
    if (comp == "..") {
      size_t slash = out.rfind('/');
      out.resize(slash == std::string::npos || slash == 0 ? 1 : slash);
      continue;
    }
    if (out.size() > 1) out.push_back('/');
    out.append(comp);
  }
}

}  // namespace

void join_path(std::string& out, std::string_view base, std::string_view rel) {
  out.assign("/");
  if (rel.empty() || rel.front() != '/') append_normalized(out, base);
  append_normalized(out, rel);
}

}  // namespace fsr
