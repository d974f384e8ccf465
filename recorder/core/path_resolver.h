// SPDX-License-Identifier: Apache-2.0
// PathResolver: the path the kernel opened for a path a workload passed, as
// the recorder's decoder resolves it long after the call (the state is gone
// by then, or about to be). The directory part of every path is made
// physical: a symlinked directory in it is replaced by what it points to,
// so `..` after it goes where the kernel went (merged /usr: /lib ->
// usr/lib, so /lib/x/../../share is /usr/share) and a file seen through
// /lib is the file under /usr/lib. The last component is kept as given:
// whether the call follows it is the call's business (lstat, unlink,
// readlink do not).
//
// What is a symlink, it knows from: the prestate (every symlink under the
// recorded root at start), the trace's own symlink, unlink, rename and mkdir
// calls, and, for paths outside the root that neither mentions, the file
// system as the recorder sees it (looked up once per path; system
// directories do not change while a build runs). Allocates only for paths
// it has not seen; a directory seen before costs one hash lookup.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace fsr {

class PathResolver {
 public:
  // Whether `path` is a symlink, and its target: how paths nothing else
  // tells about are looked up (default: lstat and readlink).
  using LinkProbe = std::function<bool(const std::string& path, std::string* target)>;
  explicit PathResolver(LinkProbe probe = live_link);

  // The recorded root: below it the prestate and the trace say everything
  // (nothing is looked up in the file system).
  void set_root(std::string root);

  // Knowledge from the prestate and the trace (absolute paths).
  void add_link(std::string_view path, std::string_view target);  // symlink() made it
  void removed(std::string_view path);                            // unlink, rmdir
  void made_dir(std::string_view path);                           // mkdir
  void renamed(std::string_view from, std::string_view to);

  // out = the physical directory part of `rel` resolved against `base` (an
  // absolute path whose components are all physical), then rel's last
  // component as given ("" rel: base itself; a last `..` or `.` is applied).
  void resolve(std::string& out, std::string_view base, std::string_view rel);
  // out = `abs` with every component physical, the last one too (what a
  // directory fd or a cwd is).
  void resolve_dir(std::string& out, std::string_view abs);

  static bool live_link(const std::string& path, std::string* target);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Map = std::unordered_map<std::string, std::string, Hash, std::equal_to<>>;
  using Set = std::unordered_set<std::string, Hash, std::equal_to<>>;

  bool is_link(const std::string& path, std::string* target);
  bool under_root(std::string_view path) const;
  // out = `path` (absolute) with every component physical; `depth` bounds
  // symlink chains as the kernel does (40).
  void walk(std::string& out, std::string_view path, int depth);
  void physical_dir(std::string& out, std::string_view dir);
  void forget_dirs() { dirs_.clear(); }

  LinkProbe probe_;
  std::string root_;
  Map links_;      // symlinks: path -> target
  Set not_links_;  // paths outside the root known not to be symlinks
  Map dirs_;       // lexical directory -> physical directory (dropped when links change)
  std::string dir_scratch_, walk_scratch_;
};

}  // namespace fsr
