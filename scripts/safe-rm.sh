# safe-rm.sh — deleting work directories from root shell scripts without
# walking into the host's file systems. Sourced by scripts/build-kvm-image.sh
# and test/kvm/harness.sh (bash); it defines functions only.
#
# A chroot build bind-mounts the host's /dev, /proc and /sys below its work
# directory. `rm -rf WORK` while one of them is still mounted there deletes
# the host's device nodes; a recursive rm of "$root" plus "/x/*" with root unset deletes the
# host's /x. So:
#   unmount_below DIR   unmounts everything mounted at or below DIR, deepest
#                       first (a lazy unmount when a plain one fails); fails
#                       when something is still mounted there afterwards.
#   rm_tree DIR         rm -rf DIR, refused loudly (exit status 1, nothing
#                       deleted) when DIR is empty or unset, resolves to /,
#                       or has anything mounted at or below it; rm itself
#                       is also told to stay on DIR's file system.

# mounts_below DIR prints the mount points at or below DIR (DIR resolved),
# deepest first. findmnt escapes blanks in its raw output as \x20.
mounts_below() {
  local dir esc
  dir=$(realpath -m -- "${1:?mounts_below: no directory}")
  esc=${dir// /\\x20}
  findmnt -rn -o TARGET | awk -v d="$esc" '$0 == d || index($0, d "/") == 1' | sort -r
}

unmount_below() {
  local dir m
  dir=${1:?unmount_below: no directory}
  [ "$(realpath -m -- "$dir")" != / ] || { echo "safe-rm: refusing to unmount everything below /" >&2; return 1; }
  while IFS= read -r m; do
    m=${m//\\x20/ }
    umount -- "${m:?}" 2>/dev/null || umount -l -- "${m:?}" || true
  done < <(mounts_below "$dir")
  if [ -n "$(mounts_below "$dir")" ]; then
    echo "safe-rm: still mounted below $dir:" $(mounts_below "$dir") >&2
    return 1
  fi
}

rm_tree() {
  local dir real left
  dir=${1:-}
  if [ -z "$dir" ]; then
    echo "safe-rm: refusing to delete: no directory given (an unset variable?)" >&2
    return 1
  fi
  [ -e "$dir" ] || [ -L "$dir" ] || return 0
  real=$(realpath -m -- "$dir")
  if [ "$real" = / ]; then
    echo "safe-rm: refusing to delete $dir: it is /" >&2
    return 1
  fi
  left=$(mounts_below "$real")
  if [ -n "$left" ]; then
    echo "safe-rm: refusing to delete $dir: still mounted below it:" $left >&2
    return 1
  fi
  rm -rf --one-file-system -- "${real:?}"
}
