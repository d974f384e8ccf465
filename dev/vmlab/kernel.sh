# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by vmlab: Debian's stock kernel, fetched and unpacked into a cache
# (never installed), and the initramfs that boots it.
#
#   kernel_ensure CACHE      sets KVER, KERNEL (vmlinuz), KMODDIR; fetches once
#   initramfs_ensure CACHE   sets INITRAMFS; rebuilds when init or modules change
#
# The kernel is whatever image package linux-image-amd64 depends on (6.1 on
# Debian 12). VMLAB_KERNEL_SUITE=trixie takes Debian 13's instead (6.12): on
# 6.6 and later, close(2) releases a file before it returns, as on WSL2's
# kernels; 6.1 releases it after the syscall's exit, where no tracer sees it.
# `apt-get download` + `dpkg-deb -x`, so the host's own kernel and packages
# are left alone (another suite's package lists live in the cache). Once a
# kernel is cached, no network is needed: CACHE/kernel/current (current-SUITE)
# names it (VMLAB_REFRESH=1 resolves the package again).

# Modules the guest loads, in this order after their dependencies (depmod's
# order, from modprobe --show-depends): virtio transport, the block disk, the
# 9p client, FUSE + virtiofs, ext4 (whose crc32c is asked for through the
# crypto API at mount time, so it is loaded explicitly), overlayfs (a writable
# /tmp over the read-only host root).
VMLAB_MODULES=(virtio_pci virtio_blk 9pnet_virtio 9p fuse virtiofs crc32c_generic ext4 overlay loop)

kernel_ensure() {
  local cache=$1 pkg deb dir suite=${VMLAB_KERNEL_SUITE:-} link apt=()
  mkdir -p "$cache/kernel"
  link=$cache/kernel/current${suite:+-$suite}
  if [[ -n $suite ]]; then
    # Another suite's package lists, private to the cache: the host's apt
    # configuration is not touched.
    local a=$cache/apt-$suite
    mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
    echo "deb http://deb.debian.org/debian $suite main" > "$a/sources.list"
    apt=(-o "Dir::Etc::SourceList=$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
  fi
  if [[ -L $link && -z ${VMLAB_REFRESH:-} ]]; then
    dir=$(readlink -f "$link")
  else
    pkg=$(apt-cache "${apt[@]}" depends linux-image-amd64 2> /dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
    if [[ -z $pkg ]]; then
      apt-get "${apt[@]}" update -q > /dev/null 2>&1 || true
      pkg=$(apt-cache "${apt[@]}" depends linux-image-amd64 2> /dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
    fi
    [[ -n $pkg ]] || { echo "vmlab: cannot resolve linux-image-amd64${suite:+ in $suite} (apt-cache depends found nothing): run apt-get update, or put a kernel in $cache/kernel" >&2; return 1; }
    dir=$cache/kernel/$pkg
    if [[ ! -f $dir/done ]]; then
      echo "vmlab: fetching $pkg into $dir (once)" >&2
      rm -rf "$dir" && mkdir -p "$dir/deb" "$dir/root"
      # _apt cannot write into root's directories: download in a world-writable temp dir.
      local dl; dl=$(mktemp -d /tmp/fsr-vmlab-dl.XXXXXX); chmod 777 "$dl"
      if ! (cd "$dl" && apt-get "${apt[@]}" download -q "$pkg" > /dev/null 2> "$dl/err"); then
        echo "vmlab: apt-get download $pkg failed: $(tail -1 "$dl/err") (needs Debian's mirror)" >&2
        rm -rf "$dl" "$dir"; return 1
      fi
      deb=$(ls "$dl"/*.deb); mv "$deb" "$dir/deb/"; rm -rf "$dl"
      dpkg-deb -x "$dir"/deb/*.deb "$dir/root" || { echo "vmlab: dpkg-deb -x of $pkg failed" >&2; return 1; }
      rm -f "$dir"/deb/*.deb
      # Debian 13 ships its modules under /usr/lib (merged /usr).
      [[ -d $dir/root/lib || ! -d $dir/root/usr/lib/modules ]] || ln -s usr/lib "$dir/root/lib"
      KVER=$(ls "$dir/root/lib/modules")
      depmod -b "$dir/root" "$KVER" || { echo "vmlab: depmod -b $dir/root $KVER failed (package kmod)" >&2; return 1; }
      extract_vmlinux "$dir"
      touch "$dir/done"
    fi
    ln -sfn "$(basename "$dir")" "$link"
  fi
  KVER=$(ls "$dir/root/lib/modules")
  KERNEL=$(ls "$dir"/root/boot/vmlinuz-*)
  [[ -s $dir/vmlinux ]] && KERNEL=$dir/vmlinux
  KMODDIR=$dir/root
}

# The decompressed kernel (ELF, booted by QEMU through its PVH entry): under
# TCG the bzImage's own xz decompressor took ~24 s of a boot, this takes none.
# Without it (another compression, no PVH note) the bzImage boots as before.
extract_vmlinux() {
  local dir=$1 bz off dec=(xz -dc)
  bz=$(ls "$dir"/root/boot/vmlinuz-*)
  grep -q '^CONFIG_PVH=y' "$dir"/root/boot/config-* 2> /dev/null || return 0
  if grep -q '^CONFIG_KERNEL_ZSTD=y' "$dir"/root/boot/config-*; then
    command -v zstd > /dev/null || return 0
    off=$(LC_ALL=C grep -abo $'\x28\xb5\x2f\xfd' "$bz" | head -1 | cut -d: -f1)
    dec=(zstd -dcq)
  else
    off=$(LC_ALL=C grep -abo $'\xfd7zXZ\x00' "$bz" | head -1 | cut -d: -f1)
  fi
  [[ -n $off ]] || return 0
  # The image has data after the compressed kernel: the decompressor's
  # complaint about it is expected; the ELF check below decides.
  tail -c +$((off + 1)) "$bz" | "${dec[@]}" > "$dir/vmlinux.tmp" 2> /dev/null
  if [[ $(head -c 4 "$dir/vmlinux.tmp" | od -An -tx1 | tr -d ' ') = 7f454c46 ]]; then
    mv "$dir/vmlinux.tmp" "$dir/vmlinux"
  else
    rm -f "$dir/vmlinux.tmp"
  fi
}

# The initramfs: busybox-static, the modules (flat, with their load order in
# /modules.order) and vmlab's init. Cached under the kernel's directory, keyed
# by the init script's and the module list's hash.
initramfs_ensure() {
  local cache=$1 init=$2 key out work m line
  [[ -x /bin/busybox ]] && /bin/busybox --list 2> /dev/null | grep -qx switch_root ||
    { echo "vmlab: /bin/busybox missing or not the static one: apt-get install busybox-static (tools/install-deps)" >&2; return 1; }
  key=$( (cat "$init"; echo "${VMLAB_MODULES[*]}"; echo "$KVER") | sha256sum | cut -c1-16)
  out=$(dirname "$KERNEL")/../../initramfs-$key.cpio.gz
  out=$(readlink -f "$(dirname "$out")")/initramfs-$key.cpio.gz
  # shellcheck disable=SC2034 # read by vmlab, which sources this file
  INITRAMFS=$out
  [[ -f $out ]] && return 0
  work=$(mktemp -d /tmp/fsr-vmlab-initramfs.XXXXXX)
  mkdir -p "$work"/{bin,dev,proc,sys,newroot,modules}
  cp /bin/busybox "$work/bin/busybox"
  ln -s busybox "$work/bin/sh"
  cp "$init" "$work/init" && chmod 755 "$work/init"
  : > "$work/modules.order"
  for m in "${VMLAB_MODULES[@]}"; do
    local builtin=0
    while read -r line; do
      [[ $line == "builtin $m" ]] && builtin=1
      [[ $line == insmod* ]] || continue
      set -- $line
      local f=$2 b; b=$(basename "$f"); b=${b%.xz}
      grep -qx "$b" "$work/modules.order" && continue
      # Busybox's insmod takes plain .ko: Debian 13 compresses its modules with xz.
      if [[ $f == *.xz ]]; then
        xz -dc "$f" > "$work/modules/$b.full" || { echo "vmlab: xz -d $f failed" >&2; rm -rf "$work"; return 1; }
        f=$work/modules/$b.full
      fi
      # Without the appended signature: checking it under TCG took seconds of each boot.
      strip --strip-debug -o "$work/modules/$b" "$f" || cp "$f" "$work/modules/$b"
      rm -f "$work/modules/$b.full"
      echo "$b" >> "$work/modules.order"
    done < <(modprobe -d "$KMODDIR" -S "$KVER" --show-depends "$m" 2> /dev/null)
    ((builtin)) || grep -q "^${m//_/[_-]}\.ko" "$work/modules.order" ||
      { echo "vmlab: module $m not found in $KMODDIR (kernel $KVER)" >&2; rm -rf "$work"; return 1; }
  done
  (cd "$work" && find . | /bin/busybox cpio -o -H newc 2> /dev/null | gzip -1) > "$out.tmp" && mv "$out.tmp" "$out"
  rm -rf "$work"
}
