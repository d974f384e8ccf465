// SPDX-License-Identifier: Apache-2.0
#include "predict/placement_column.h"

#include <fmt/format.h>

namespace fsr {
namespace {

const ProfileRef* find_profile(const std::vector<ProfileRef>& profiles, const std::string& where) {
  for (const ProfileRef& p : profiles)
    if (p.file == where) return &p;
  for (const ProfileRef& p : profiles)
    if (p.name == where) return &p;
  return nullptr;
}

std::string known(const std::vector<ProfileRef>& profiles) {
  std::string out;
  for (const ProfileRef& p : profiles) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

}  // namespace

Result<std::unique_ptr<PlacedModels>> resolve_placement(const PlacementRequest& req,
                                                        const std::vector<ProfileRef>& profiles,
                                                        std::vector<std::string>& problems) {
  auto m = std::make_unique<PlacedModels>();
  std::vector<PlaceRule> usable;
  for (const PlaceRule& r : req.rules) {
    if (find_profile(profiles, r.where)) {
      usable.push_back(r);
      continue;
    }
    problems.push_back(
        fmt::format("--place {}={}: no readable --profile is named '{}' (give one of its files or "
                    "names: {}): left out",
                    r.subdir, r.where, r.where, known(profiles)));
  }
  m->placement = make_placement(usable, problems);
  const ProfileRef* rest = nullptr;
  if (!m->placement.rest.empty()) {
    rest = find_profile(profiles, m->placement.rest);
    if (!rest)
      return Status::error(fmt::format("--place .={}: no readable --profile is named '{}' (give one of: {})",
                                       m->placement.rest, m->placement.rest, known(profiles)));
  } else {
    for (const ProfileRef& p : profiles) {
      bool named = false;
      for (const PlaceRule& r : m->placement.rules) named = named || find_profile(profiles, r.where) == &p;
      if (!named) rest = &p;
    }
    if (!rest)
      return Status::error(
          "--place: every --profile is placed under a SUBDIR: say where the rest of the tree "
          "lives with --place .=PROFILE");
  }
  if (m->placement.rules.empty() && !req.attribute)
    return Status::error("--place: no usable placement left (see the lines above)");
  m->attribute = req.attribute;
  m->rest = rest->model;
  m->rest_name = rest->name;
  m->placement.rest = rest->name;
  for (PlaceRule& r : m->placement.rules) {
    const ProfileRef* p = find_profile(profiles, r.where);
    m->rule_model.push_back(p->model);
    m->rule_name.push_back(p->name);
    r.where = p->name;
  }
  return m;
}

std::vector<std::string> placement_notes(const PlacedModels& m, const PlacedCounts& c) {
  std::vector<std::string> out;
  if (c.ops.size() != m.rule_model.size() + 1) return out;
  std::string per = fmt::format("placement {}: ", m.placement.describe());
  for (size_t k = 0; k < m.rule_model.size(); ++k)
    per += fmt::format("{} ops under {} priced by {}; ", c.ops[k + 1], m.placement.rules[k].subdir, m.rule_name[k]);
  per += fmt::format("{} other ops by {}", c.ops[0], m.rest_name);
  out.push_back(per);
  for (size_t k = 0; k < m.rule_model.size(); ++k)
    if (c.ops[k + 1] == 0)
      out.push_back(
          fmt::format("--place {}={}: the trace never touched {} (no op under it): this rule changes "
                      "nothing; check the SUBDIR against the recorded root",
                      m.placement.rules[k].subdir, m.rule_name[k], m.placement.rules[k].subdir));
  if (c.crossing)
    out.push_back(
        fmt::format("{} renames or links cross from one placed mount to another: on real mounts they "
                    "fail with EXDEV (the program would copy instead); priced on their first path's mount",
                    c.crossing));
  return out;
}

}  // namespace fsr
