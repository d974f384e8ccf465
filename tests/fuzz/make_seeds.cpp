// SPDX-License-Identifier: Apache-2.0
// Writes the fuzzer's seed corpus: small valid traces and results, and
// damaged variants (truncated, bit-flipped, wrong version).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "traces/synthetic/synthetic.h"
#include "traces/trace_writer.h"

namespace {
std::vector<char> slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
void spit(const std::string& p, const std::vector<char>& b) {
  std::ofstream(p, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_seeds DIR\n";
    return 2;
  }
  std::string dir = argv[1];
  std::filesystem::create_directories(dir);
  fsr::TraceHeader h;
  h.command = {"make", "-j2"};
  h.root = "/src";
  {
    auto w = fsr::TraceWriter::create(dir + "/trace", h, {.chunk_events = 40});
    if (!w) return 1;
    if (!(*w)->add_prestate({"/src", fsr::PrestateKind::kDir, 040755, 0, "", 1, 1, 2})) return 1;
    if (!(*w)->add_prestate({"/src/l", fsr::PrestateKind::kSymlink, 0120777, 1, "x", 2, 1, 1})) return 1;
    fsr::BuildLikeStream gen(300, 7);
    std::vector<fsr::Event> batch;
    for (int n = 0; n < 150;) {
      batch.clear();
      gen.step(batch);
      for (const auto& p : gen.new_paths()) (*w)->intern(p);
      for (const auto& e : batch) (void)(*w)->append(e), ++n;
    }
    if (!(*w)->finish({})) return 1;
  }
  h.kind = fsr::PayloadKind::kResult;
  {
    auto w = fsr::TraceWriter::create(dir + "/result", h, {.chunk_events = 30});
    if (!w) return 1;
    fsr::StrId p = (*w)->intern("/t/a");
    for (uint64_t i = 0; i < 80; ++i) {
      fsr::OpRecord o;
      o.event_index = i;
      o.start = i * 1000;
      o.latency = 500 + i;
      o.path = p;
      o.nr = 262;
      o.worker = static_cast<uint32_t>(i % 3);
      (void)(*w)->append(o);
    }
    if (!(*w)->finish({})) return 1;
  }
  auto t = slurp(dir + "/trace");
  spit(dir + "/trace-cut-half", {t.begin(), t.begin() + static_cast<long>(t.size() / 2)});
  spit(dir + "/trace-cut-tail", {t.begin(), t.end() - 20});
  auto flip = t;
  flip[flip.size() / 3] ^= 0x10;
  spit(dir + "/trace-bitflip", flip);
  auto ver = t;
  ver[8] = 7;
  spit(dir + "/trace-version", ver);
  std::cout << "make_seeds: wrote 6 seeds to " << dir << "\n";
  return 0;
}
