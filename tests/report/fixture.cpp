// Writes the small fixed pair of results (base.result on "ext4", slow.result
// on "9p-drvfs") and the HTML page of their comparison into argv[1], for the
// command-line and headless-Chromium tests.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <tuple>

#include "tests/report/test_results.h"
#include "report/compare.h"
#include "report/render_html.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: report_fixture OUTDIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const fsr::ResultSet base = fsr::testdata::small_result(false), slow = fsr::testdata::small_result(true);
  for (auto [rs, name] : {std::pair{&base, "base.result"}, std::pair{&slow, "slow.result"}}) {
    if (fsr::Status st = fsr::testdata::write_result_file(*rs, (dir / name).string()); !st) {
      std::cerr << st.message() << "\n";
      return 1;
    }
  }
  // Results that name their trace (fsreplay replay copies the trace's content
  // id into the result): two of one trace, one of another.
  fsr::ResultSet one = base, one_slow = slow, two = slow;
  for (auto [rs, trace, id] : {std::tuple{&one, "/t/one.trace", 0x1111222233334444ull},
                               std::tuple{&one_slow, "/t/one.trace", 0x1111222233334444ull},
                               std::tuple{&two, "/t/two.trace", 0x5555666677778888ull}}) {
    rs->header.source_trace = trace;
    rs->header.source_trace_id = id;
  }
  for (auto [rs, name] :
       {std::pair{&one, "one.result"}, std::pair{&one_slow, "one-slow.result"}, std::pair{&two, "two.result"}}) {
    if (fsr::Status st = fsr::testdata::write_result_file(*rs, (dir / name).string()); !st) {
      std::cerr << st.message() << "\n";
      return 1;
    }
  }
  std::ofstream out(dir / "report.html");
  out << fsr::render_html(fsr::build_comparison({&base, &slow}), {.title = "fsreplay report: fixture"});
  return out ? 0 : 1;
}
