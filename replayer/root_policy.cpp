#include "replayer/root_policy.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "replayer/path_map.h"
#include "replayer/prepare.h"
#include "traces/paths.h"

namespace fsr {
std::string real_path(const std::string& p) {
  char* r = realpath(p.c_str(), nullptr);
  if (!r) return {};
  std::string s(r);
  free(r);
  return s;
}

namespace {

Status refuse_dangerous_root(const std::string& what, const std::string& dir) {
  if (dir == "/") return Status::error(what + " is '/': choose a dedicated empty directory");
  std::vector<std::string> homes;
  if (const char* h = getenv("HOME")) homes.push_back(real_path(h));
  setpwent();
  while (passwd* pw = getpwent())
    if (pw->pw_dir) homes.push_back(real_path(pw->pw_dir));
  endpwent();
  for (const std::string& h : homes)
    if (!h.empty() && h == dir)
      return Status::error(what + " " + dir + " is a home directory: choose a dedicated directory inside it");
  return Status::ok();
}

}  // namespace

Roots::~Roots() {
  remove_scratch(*this);
  for (int f : fd)
    if (f >= 0) close(f);
}

Status open_roots(const std::string& trace, const ReplayOptions& o, Roots& r) {
  if (o.target.empty()) return Status::error("--target is required: the directory the recorded root replays in");
  r.target = real_path(o.target);
  if (r.target.empty()) return Status::error("target " + o.target + ": " + strerror(errno) + " (create it first)");
  FSR_RETURN_IF_ERROR(refuse_dangerous_root("target", r.target));
  if (o.scratch.empty()) {
    const char* tmp = getenv("TMPDIR");
    std::string tpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/fsreplay-scratch-XXXXXX";
    if (!mkdtemp(tpl.data())) return Status::error("cannot create a scratch directory in " + tpl + ": " + strerror(errno) + " (set TMPDIR or pass --scratch)");
    r.scratch = real_path(tpl);
    r.scratch_is_ours = true;
    if (r.scratch.empty()) return Status::error("scratch " + tpl + ": " + strerror(errno) + " (set TMPDIR or pass --scratch)");
  } else {
    r.scratch = real_path(o.scratch);
    if (r.scratch.empty()) return Status::error("scratch " + o.scratch + ": " + strerror(errno) + " (create it first)");
  }
  FSR_RETURN_IF_ERROR(refuse_dangerous_root("scratch", r.scratch));
  // Both are real paths (absolute, normalised, never empty): lexical checks suffice.
  if (is_beneath(r.scratch, r.target) || is_beneath(r.target, r.scratch))
    return Status::error("target " + r.target + " and scratch " + r.scratch + " overlap: use separate directories");
  std::string tr = real_path(trace);
  if (!tr.empty() && (is_beneath(tr, r.target) || is_beneath(tr, r.scratch)))
    return Status::error("the trace " + tr + " lies inside the target or scratch: move it out, replay may change it");
  if (!o.output.empty()) {
    std::string outdir = real_path(std::string(parent_of(normalize_abs(o.output[0] == '/' ? o.output : real_path(".") + "/" + o.output))));
    if (!outdir.empty() && (is_beneath(outdir, r.target) || is_beneath(outdir, r.scratch)))
      return Status::error("the result file " + o.output + " would lie inside the target or scratch: write it elsewhere");
  }
  r.fd[0] = open(r.target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  r.fd[1] = open(r.scratch.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (r.fd[0] < 0 || r.fd[1] < 0) return Status::error("cannot open the target or scratch directory: " + std::string(strerror(errno)));
  return Status::ok();
}

void remove_scratch(Roots& r) {
  if (!r.scratch_is_ours || r.scratch.empty()) return;
  r.scratch_is_ours = false;
  // Removed by name beneath its parent, never following a link (prepare.cpp).
  std::string parent(parent_of(r.scratch));
  int pfd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0) return;
  TreeSpec gone;
  gone.created.push_back({Root::kTarget, r.scratch.substr(parent.size() + (parent == "/" ? 0 : 1))});
  int roots[2] = {pfd, pfd};
  (void)materialise(gone, roots, Features::all(), 1, nullptr);
  close(pfd);
}

}  // namespace fsr
