// SPDX-License-Identifier: Apache-2.0
#include "advise/advise.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "predict/predict.h"
#include "report/format.h"
#include "traces/profile.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

constexpr size_t kBeam = 4;  // sets kept per step beyond the exact limit

struct ProfileArg {
  std::string file, name;
  std::string mount;  // host, mount point and source of the probed directory ("" unknown)
};

// Where a profile was probed, from its `detect` fingerprint: two profiles of
// one mount of one host give a placement between them nothing to gain.
struct Pins {
  std::vector<std::string> fast;  // on FAST in every placement
  std::vector<std::string> stay;  // never moved
};

bool nests(const std::string& a, const std::string& b) { return rel_within(a, b) || rel_within(b, a); }

PredictOptions predict_options(const AdviseOptions& opt, const std::vector<std::string>& profiles) {
  PredictOptions po;
  po.profiles = profiles;
  po.recorded_column = false;
  po.stream = opt.stream;
  po.draws = 1;
  po.report = {.top = 1, .dir_depth = 1};
  return po;
}

// A column per profile priced wholly by it, summing the ns per directory.
void add_attribution(PredictOptions& po, const std::vector<std::string>& files) {
  for (size_t k = 0; k < files.size(); ++k)
    po.placements.push_back({{{".", files[k]}}, fmt::format("attr-{}", k), true});
}

const PlacedCounts* attribution(const Prediction& pr, size_t k) {
  for (const PredictColumn& c : pr.columns)
    if (c.profile_name == fmt::format("attr-{}", k)) return &c.placed;
  return nullptr;
}

// The directories 1-3 deep that carry at least min_share of what SLOW adds
// over FAST (priced ns, summed per directory), unless pinned; the largest
// first, at most max_candidates (`cut`: how many more).
std::vector<Candidate> candidates(const PlacedCounts& fast, const PlacedCounts& slow, const Pins& pins,
                                  const AdviseOptions& opt, size_t& before_keep, size_t& cut) {
  const int64_t total = int64_t(slow.priced_ns) - int64_t(fast.priced_ns);
  std::vector<Candidate> out;
  before_keep = 0;
  for (const auto& [dir, ns] : slow.dir_ns) {
    const auto f = fast.dir_ns.find(dir);
    const int64_t added = int64_t(ns) - (f == fast.dir_ns.end() ? 0 : int64_t(f->second));
    const double share = total > 0 ? double(added) / double(total) : 0;
    if (added <= 0 || share < opt.min_share) continue;
    ++before_keep;
    bool pinned = false;
    for (const std::string& k : pins.stay) pinned = pinned || nests(dir, k);
    for (const std::string& k : pins.fast) pinned = pinned || nests(dir, k);
    if (!pinned) out.push_back({dir, added, share});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate& a, const Candidate& b) { return a.added_ns > b.added_ns; });
  cut = out.size() > opt.max_candidates ? out.size() - opt.max_candidates : 0;
  if (cut) out.resize(opt.max_candidates);
  return out;
}

using Set = std::vector<size_t>;  // candidate indices, ascending

bool fits(const Set& s, size_t c, const std::vector<Candidate>& cands) {
  for (size_t k : s)
    if (k == c || nests(cands[k].dir, cands[c].dir)) return false;
  return true;
}

// Every set of up to `n` candidates that do not nest, while there are at most `limit`.
void enumerate(const std::vector<Candidate>& cands, unsigned n, size_t from, Set& cur, std::vector<Set>& out,
               size_t limit) {
  for (size_t c = from; c < cands.size() && out.size() <= limit; ++c) {
    if (!fits(cur, c, cands)) continue;
    cur.push_back(c);
    out.push_back(cur);
    if (cur.size() < n) enumerate(cands, n, c + 1, cur, out, limit);
    cur.pop_back();
  }
}

class Evaluator {
 public:
  Evaluator(const std::string& trace, const AdviseOptions& opt, const ProfileArg& fast, const ProfileArg& slow,
            const Pins& pins, Advice& a)
      : trace_(trace), opt_(opt), fast_(fast), slow_(slow), pins_(pins), a_(a) {}

  // Predicted wall of each set (with the kept directories on FAST).
  Result<std::vector<uint64_t>> walls(const std::vector<Set>& sets, const std::vector<Candidate>& cands) {
    PredictOptions po = predict_options(opt_, {fast_.file, slow_.file});
    for (size_t k = 0; k < sets.size(); ++k) {
      PlacementRequest& req = po.placements.emplace_back();
      req.label = fmt::format("advise-{}", k);
      for (size_t c : sets[k]) req.rules.push_back({cands[c].dir, fast_.file});
      for (const std::string& d : pins_.fast) req.rules.push_back({d, fast_.file});
      req.rules.push_back({".", slow_.file});
    }
    FSR_ASSIGN_OR_RETURN(const Prediction pr, run_predict(trace_, po));
    std::vector<uint64_t> out(sets.size(), UINT64_MAX);
    for (const PredictColumn& c : pr.columns) {
      for (const std::string& n : c.assumptions)
        if (n.rfind("placement ", 0) != 0 && std::find(a_.notes.begin(), a_.notes.end(), n) == a_.notes.end())
          a_.notes.push_back(n);
      if (c.profile_name.rfind("advise-", 0) == 0) out[std::stoul(c.profile_name.substr(7))] = c.sim.wall_ns;
    }
    ++passes_;
    return out;
  }
  unsigned passes() const { return passes_; }

 private:
  const std::string& trace_;
  const AdviseOptions& opt_;
  const ProfileArg &fast_, &slow_;
  const Pins& pins_;
  Advice& a_;
  unsigned passes_ = 0;
};

PlacedRow make_row(const Set& s, uint64_t wall, const std::vector<Candidate>& cands, const Pins& pins,
                   const ConfigAdvice& cfg, const Advice& a) {
  PlacedRow r;
  for (size_t c : s) r.moves.push_back(cands[c].dir);
  for (const std::string& d : pins.fast) r.moves.push_back(d);
  r.wall_ns = wall;
  r.saving_ns = int64_t(cfg.all_slow_ns) - int64_t(wall);
  r.saving = cfg.all_slow_ns ? double(r.saving_ns) / double(cfg.all_slow_ns) : 0;
  const int64_t gap = int64_t(cfg.all_slow_ns) - int64_t(cfg.all_fast_ns);
  r.recovered = gap > 0 ? double(r.saving_ns) / double(gap) : 0;
  std::string places;
  for (const std::string& d : r.moves) {
    for (Realisation& x : realisations(d, a.root)) r.realise.push_back(std::move(x));
    places += fmt::format(" --place {}=$FAST/{}", d, d);
  }
  r.verify = fmt::format("fsreplay replay {} --target DIR{}", a.trace, places);
  return r;
}

// The search on one configuration: every combination when few, else a beam search.
Status search(Evaluator& ev, const std::vector<Candidate>& cands, const Pins& pins, const AdviseOptions& opt,
              ConfigAdvice& cfg, const Advice& a) {
  std::map<Set, uint64_t> seen;
  auto run = [&](const std::vector<Set>& sets, const std::string& what) -> Result<std::vector<uint64_t>> {
    if (opt.progress) opt.progress(fmt::format("advise: {}: {} ({} placements)", cfg.name, what, sets.size()));
    FSR_ASSIGN_OR_RETURN(std::vector<uint64_t> w, ev.walls(sets, cands));
    for (size_t k = 0; k < sets.size(); ++k) seen[sets[k]] = w[k];
    return w;
  };
  std::vector<Set> all;
  Set cur;
  if (!pins.fast.empty()) all.push_back({});
  enumerate(cands, opt.max_moves, 0, cur, all, opt.exact_limit);
  cfg.exact = all.size() <= opt.exact_limit;
  if (cfg.exact && !all.empty()) {
    FSR_ASSIGN_OR_RETURN(auto w, run(all, "every combination"));
  } else if (!all.empty()) {
    // A beam search: the best few sets of each size grow by one move each
    // step (a first move that holds every other, the whole tree, would end
    // a plain greedy search after one step).
    std::vector<Set> beam{{}};
    for (unsigned step = 1; step <= opt.max_moves && !beam.empty(); ++step) {
      std::set<Set> grown;
      for (const Set& b : beam)
        for (size_t c = 0; c < cands.size(); ++c)
          if (fits(b, c, cands)) {
            Set g = b;
            g.insert(std::upper_bound(g.begin(), g.end(), c), c);
            if (!seen.count(g)) grown.insert(g);
          }
      const std::vector<Set> sets(grown.begin(), grown.end());
      if (sets.empty()) break;
      FSR_ASSIGN_OR_RETURN(auto w, run(sets, fmt::format("search, move {} of {}", step, opt.max_moves)));
      std::vector<size_t> idx(sets.size());
      for (size_t k = 0; k < idx.size(); ++k) idx[k] = k;
      std::stable_sort(idx.begin(), idx.end(), [&w](size_t x, size_t y) { return w[x] < w[y]; });
      beam.clear();
      for (size_t k = 0; k < idx.size() && k < kBeam; ++k) beam.push_back(sets[idx[k]]);
    }
  }
  cfg.evaluated = seen.size();
  std::vector<std::pair<uint64_t, Set>> order;
  for (const auto& [s, w] : seen) order.push_back({w, s});
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : x.second.size() < y.second.size();
  });
  for (size_t k = 0; k < order.size() && k < opt.rows; ++k)
    cfg.ranked.push_back(make_row(order[k].second, order[k].first, cands, pins, cfg, a));
  return Status::ok();
}

// The readable profiles (one line for each other), and the pins resolved to them.
std::vector<ProfileArg> read_profiles(const AdviseOptions& opt, Advice& a) {
  std::vector<ProfileArg> out;
  for (const std::string& f : opt.profiles) {
    auto p = read_profile(f);
    if (!p) {
      a.problems.push_back(p.message() + " (left out of the advice)");
      continue;
    }
    out.push_back({f,
                   !p->name.empty()           ? p->name
                   : !p->mount_kind().empty() ? p->mount_kind()
                                              : f,
                   p->mount_identity()});
  }
  for (size_t i = 1; i < out.size(); ++i)
    if (!out[0].mount.empty() && out[i].mount == out[0].mount)
      a.problems.push_back(
          fmt::format("{} and {} were probed on the same mount, {}: moving a directory between "
                      "them changes nothing (their difference is the probes' noise)",
                      out[0].name, out[i].name, out[i].mount));
  return out;
}

Pins resolve_pins(const AdviseOptions& opt, const std::vector<ProfileArg>& profiles, Advice& a) {
  Pins pins;
  for (const PlaceRule& k : opt.keep) {
    const ProfileArg* to = nullptr;
    for (const ProfileArg& p : profiles)
      if (!to && (p.file == k.where || p.name == k.where)) to = &p;
    if (!to) {
      a.problems.push_back(
          fmt::format("--keep {}={}: no readable --profile is named '{}': ignored", k.subdir, k.where, k.where));
      continue;
    }
    (to == &profiles[0] ? pins.fast : pins.stay).push_back(k.subdir);
    a.keep.push_back(fmt::format("{}={}", k.subdir, to->name));
  }
  return pins;
}

std::string verdict(const Advice& a) {
  const ConfigAdvice* best_cfg = nullptr;
  const PlacedRow* best = nullptr;
  for (const ConfigAdvice& c : a.configs) {
    const uint64_t w = c.ranked.empty() ? c.all_slow_ns : c.ranked[0].wall_ns;
    if (!best_cfg || w < (best ? best->wall_ns : best_cfg->all_slow_ns))
      best_cfg = &c, best = c.ranked.empty() ? nullptr : &c.ranked[0];
  }
  if (!best_cfg) return "";
  if (!best || best->saving_ns <= 0)
    return fmt::format("No move predicted to help: keep the tree on {} ({}).", best_cfg->name,
                       fmtx::ns(best_cfg->all_slow_ns));
  std::string moves;
  for (const std::string& m : best->moves) moves += (moves.empty() ? "" : ", ") + m;
  return fmt::format("Best: the tree on {} with {} on {}: {} (all on {}: {}; saves {}, {} of the slowdown).",
                     best_cfg->name, moves, a.fast_name, fmtx::ns(best->wall_ns), best_cfg->name,
                     fmtx::ns(best_cfg->all_slow_ns), fmtx::ns(uint64_t(std::max<int64_t>(best->saving_ns, 0))),
                     fmtx::pct(best->recovered));
}

}  // namespace

Result<Advice> run_advise(const std::string& trace, const AdviseOptions& opt) {
  Advice a;
  a.trace = trace;
  a.max_moves = opt.max_moves;
  const std::vector<ProfileArg> profiles = read_profiles(opt, a);
  if (profiles.size() < 2)
    return Status::error(
        "advise: give two readable profiles or more: --profile FAST (where directories can move) "
        "--profile SLOW (where the tree lives)" +
        (a.problems.empty() ? std::string() : "; " + a.problems.back()));
  {
    FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> rd, TraceReader::open(trace));
    a.root = rd->header().root.empty() ? "/" : rd->header().root;
  }
  a.fast_file = profiles[0].file;
  a.fast_name = profiles[0].name;
  const Pins pins = resolve_pins(opt, profiles, a);
  std::vector<std::string> files;
  for (const ProfileArg& p : profiles) files.push_back(p.file);
  if (opt.progress) opt.progress(fmt::format("advise: where the time goes ({} profiles)", files.size()));
  PredictOptions po = predict_options(opt, files);
  add_attribution(po, files);
  FSR_ASSIGN_OR_RETURN(const Prediction base, run_predict(trace, po));
  a.events = base.events;
  for (const std::string& w : base.warnings) a.notes.push_back(w);
  for (const PredictColumn& c : base.columns)
    for (const std::string& n : c.assumptions)
      if (n.rfind("placement ", 0) != 0 && std::find(a.notes.begin(), a.notes.end(), n) == a.notes.end())
        a.notes.push_back(n);
  for (size_t k = 1; k < profiles.size() && k < base.columns.size(); ++k) {
    ConfigAdvice& cfg = a.configs.emplace_back();
    cfg.name = profiles[k].name;
    cfg.file = profiles[k].file;
    cfg.all_fast_ns = base.columns[0].sim.wall_ns;
    cfg.all_slow_ns = base.columns[k].sim.wall_ns;
    size_t before_keep = 0, cut = 0;
    const PlacedCounts *fast = attribution(base, 0), *slow = attribution(base, k);
    if (!fast || !slow) return Status::error("advise: predict gave no per-directory figures (a bug: please report it)");
    cfg.candidates = candidates(*fast, *slow, pins, opt, before_keep, cut);
    if (cut)
      a.notes.push_back(
          fmt::format("{}: {} more directories carry {}% of the slowdown or more: only the {} "
                      "largest are searched",
                      cfg.name, cut, opt.min_share * 100, opt.max_candidates));
    if (cfg.candidates.empty() && before_keep > 0)
      a.problems.push_back(fmt::format("--keep leaves no directory to move on {}: only the all-on figures", cfg.name));
    if (cfg.candidates.empty() && pins.fast.empty()) continue;
    Evaluator ev(trace, opt, profiles[0], profiles[k], pins, a);
    if (Status st = search(ev, cfg.candidates, pins, opt, cfg, a); !st) return st;
  }
  a.verdict = verdict(a);
  return a;
}

}  // namespace fsr
