// SPDX-License-Identifier: Apache-2.0
#include "tests/report/golden.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fsr::testdata {

std::string check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(FSR_GOLDEN_DIR) + "/" + name;
  if (const char* u = std::getenv("FSR_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": missing; run the test with FSR_UPDATE_GOLDEN=1 to create it";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string want = ss.str();
  if (want == actual) return {};
  std::istringstream a(actual), w(want);
  std::string la, lw;
  for (int line = 1;; ++line) {
    const bool ga = static_cast<bool>(std::getline(a, la)), gw = static_cast<bool>(std::getline(w, lw));
    if (!ga && !gw) break;
    if (!ga || !gw || la != lw)
      return path + ":" + std::to_string(line) + ": differs\n  want: " + (gw ? lw : "<eof>") +
             "\n  got:  " + (ga ? la : "<eof>") + "\n(FSR_UPDATE_GOLDEN=1 rewrites the golden files)";
  }
  return path + ": differs in line endings";
}

}  // namespace fsr::testdata
