// Writes the HTML page of the small fixed comparison to argv[1], for the
// headless-Chromium test (html_in_chromium.sh).
#include <fstream>
#include <iostream>

#include "tests/report/test_results.h"
#include "tools/report/compare.h"
#include "tools/report/render_html.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: report_html_fixture OUT.html\n";
    return 2;
  }
  const fsr::ResultSet base = fsr::testdata::small_result(false), slow = fsr::testdata::small_result(true);
  std::ofstream out(argv[1]);
  out << fsr::render_html(fsr::build_comparison({&base, &slow}), {.title = "fsreplay report: fixture"});
  return out ? 0 : 1;
}
