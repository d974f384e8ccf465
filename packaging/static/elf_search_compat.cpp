// SPDX-License-Identifier: Apache-2.0
// The search-tree calls that elfutils 0.192's libelf.a leaves undefined
// (Debian 13 ships it: elf_begin, elf_end and elf_getdata_rawchunk call them,
// but the archive lacks the object that defines them; fixed upstream after
// 0.192). Without them fsreplay-static does not link on Debian 13. The
// definitions are weak: an archive that has its own still links, and older
// ones (Debian 12's 0.188) never call them. The tree is elfutils'
// `search_tree`, whose first member is the tsearch root; its lock after it is
// left alone: libbpf reads each ELF object from one thread, and a lock the
// Elf's zeroed memory holds needs no setting up (a zero pthread_rwlock_t is
// an unlocked one).
#include <search.h>

namespace {
struct SearchTreeRoot {
  void* root;  // elfutils' search_tree begins with it; its lock follows
};
}  // namespace

extern "C" {

__attribute__((weak)) void eu_search_tree_init(SearchTreeRoot* tree) { tree->root = nullptr; }

__attribute__((weak)) void eu_tdestroy(SearchTreeRoot* tree, void (*free_node)(void*)) {
  if (tree->root) tdestroy(tree->root, free_node);
  tree->root = nullptr;
}

__attribute__((weak)) void eu_search_tree_fini(SearchTreeRoot* tree, void (*free_node)(void*)) {
  eu_tdestroy(tree, free_node);
}

__attribute__((weak)) void* eu_tsearch(const void* key, SearchTreeRoot* tree,
                                       int (*compare)(const void*, const void*)) {
  return tsearch(key, &tree->root, compare);
}

__attribute__((weak)) void* eu_tfind(const void* key, SearchTreeRoot* tree, int (*compare)(const void*, const void*)) {
  return tfind(key, &tree->root, compare);
}

__attribute__((weak)) void* eu_tdelete(const void* key, SearchTreeRoot* tree,
                                       int (*compare)(const void*, const void*)) {
  return tdelete(key, &tree->root, compare);
}

}  // extern "C"
