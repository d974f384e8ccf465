// SPDX-License-Identifier: Apache-2.0
// fsreplay: record a workload's file-system syscalls, replay them on another
// mount, attribute the difference. Argument parsing only; see verbs.h.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <map>
#include <string>

#include "cli/build_commit.h"
#include "cli/cli_util.h"
#include "cli/verbs.h"

int main(int argc, char** argv) {
  CLI::App app{
      "fsreplay: record a workload's file-system syscalls with eBPF, replay them on "
      "another mount, and attribute the slowdown per syscall class"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("fsreplay {} (commit {}, {})", FSREPLAY_VERSION,
                                                fsr::cli::build_commit(), FSREPLAY_BUILD));
  app.footer(std::string(fsr::cli::kExitCodesHelp) + "\nRun 'fsreplay VERB --help' for a verb's options.");

  std::map<CLI::App*, fsr::cli::Action> actions;
  auto add = [&](fsr::cli::Action (*fn)(CLI::App&)) {
    size_t before = app.get_subcommands([](CLI::App*) { return true; }).size();
    fsr::cli::Action act = fn(app);
    auto subs = app.get_subcommands([](CLI::App*) { return true; });
    if (subs.size() > before) actions[subs.back()] = std::move(act);
  };
  add(fsr::cli::add_record_verb);
  add(fsr::cli::add_inspect_verb);
  add(fsr::cli::add_dump_verb);
  add(fsr::cli::add_prepare_verb);
  add(fsr::cli::add_replay_verb);
  add(fsr::cli::add_report_verb);
  add(fsr::cli::add_compare_verb);
  add(fsr::cli::add_detect_verb);
  add(fsr::cli::add_probe_verb);
  add(fsr::cli::add_predict_verb);

  // An unknown verb: CLI11 would say only "A subcommand is required".
  std::string verbs;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    verbs += (verbs.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc >= 2 && sub->check_name(argv[1]));
  }
  if (argc < 2) {
    fmt::print(stderr, "fsreplay: give a verb: {} (see 'fsreplay --help')\n", verbs);
    return fsr::cli::kExitUsage;
  }
  if (argv[1][0] != '-' && !known) {
    fmt::print(stderr, "fsreplay: '{}' is not a verb; the verbs are {} (see 'fsreplay --help')\n", argv[1], verbs);
    return fsr::cli::kExitUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string verb;  // the verb whose options were being parsed, if any
    for (const auto& [sub, act] : actions)
      if (sub->parsed()) verb = " " + sub->get_name();
    fmt::print(stderr, "fsreplay{}: {} (see 'fsreplay{} --help')\n", verb, e.what(), verb);
    return fsr::cli::kExitUsage;
  }
  for (auto& [sub, act] : actions)
    if (sub->parsed()) return act();
  return fsr::cli::kExitUsage;
}
