#!/usr/bin/env bash
# build-kvm-image.sh — build a small Debian guest image that lab's libvirt
# back end can use as a template (a base volume in a storage pool).
#
#   scripts/build-kvm-image.sh -k ~/.ssh/lab_ed25519.pub [-o /var/cache/lab-kvm] [-s bookworm] [-c]
#   (-c: the cloud variant, see build_cloud_variant below)
#
# It prints the directory holding the result, and nothing else, on stdout
# (every tool's chatter goes to stderr):
#   base.qcow2   root file system (ext4 on /dev/vda, no partition table)
#   vmlinux      kernel   } for direct kernel boot: the provider's
#   initrd.img   initrd   } kernel/initrd settings, cmdline root=/dev/vda console=ttyS0
# The guest gets its address by DHCP (systemd-networkd, ClientIdentifier=mac),
# runs sshd with one ed25519 host key made here, at build time (lab pins the key each guest
# presents at first contact; guests of one image share it), and lets root in
# with the given public key only. Boot time under QEMU emulation (TCG) is what
# the rest is about (BenchmarkKVMBoot measures it; docs/backend-libvirt.md):
#  - vmlinux is the kernel uncompressed, booted through its PVH entry: QEMU
#    loads the ELF and the guest skips decompressing ~60 MB of xz (seconds
#    under TCG). A kernel without PVH support ships compressed instead.
#  - the initrd has no udev: it loads the virtio and ext4 modules by list
#    and devtmpfs makes /dev/vda;
#  - drivers for the pc machine's devices a benchmark guest does not use
#    (floppy, IDE, USB, PC speaker, ...) are blacklisted, and systemd's
#    generators for what the guest does not have (cryptsetup, GPT auto,
#    SysV scripts, ...) are masked;
#  - no fsck, no key generation or entropy wait at boot, and the units a
#    throwaway benchmark guest does not need are masked;
#  - kernel modules for hardware a virtual machine does not have (sound,
#    GPU, media, wireless, InfiniBand, ...) are left out: a smaller image
#    to hash and copy.
# It has iperf3, ethtool, iproute2 and procps.
#
# The result is cached under OUTDIR by a hash of this script and its inputs:
# a second run with the same key returns at once. The Debian mirror is read
# from this machine's apt sources; none is written here.
#
# Needs root, debootstrap, qemu-utils (qemu-img) and e2fsprogs (mkfs.ext4 -d).
#
# Every path it deletes, unmounts or chroots into is written ${var:?}: with
# the variable unset (the script sourced, or a line pasted into a root
# shell) the command fails instead of acting on the host's own /etc, /var
# or /dev. Work directories are deleted by rm_tree (scripts/safe-rm.sh),
# which refuses while anything below them is still mounted.
set -euo pipefail
# shellcheck source=scripts/safe-rm.sh
. "$(dirname "${BASH_SOURCE[0]}")/safe-rm.sh"

# wait_for_build_lock holds the lock file $1 (fd 8) until the script ends,
# waiting, and saying so, while another build holds it.
wait_for_build_lock() {
  exec 8>"$1"
  flock -n 8 || { echo "build-kvm-image: another build holds $1: waiting for it" >&2; flock 8; }
}

# -c: the cloud variant (a cloud image as lab's cloud_init {} templates
# expect): the default image with cloud-init installed (NoCloud only, one
# ed25519 host key made at first boot) and NO login key: lab's seed brings
# the key. Derived from the default image (built first, or taken from the
# cache) with one chroot step instead of a second debootstrap; cached by a
# hash of this script and the default image. Prints its directory (with
# base.qcow2, vmlinux, initrd.img) like the default.
build_cloud_variant() {
  local base vdest vhash
  base=$("$0" -o "$out" -k "$pubkey" -s "$suite") || exit 1
  [ -n "$base" ] && [ -f "$base/done" ] || { echo "build-kvm-image: no default image to derive from ('$base')" >&2; exit 1; }
  exec 3>&1 1>&2
  vhash=$( { cat "$0"; cat "$base/done"; } | sha256sum | cut -c1-16)
  vdest=$out/$suite-cloud-$vhash
  wait_for_build_lock "$out/.build-cloud.lock"
  if [ -f "${vdest:?}/done" ]; then
    echo "${vdest:?}" >&3
    return 0
  fi
  cloud_t0=$(date +%s)
  cloud_work=$(mktemp -d "$out/.build-cloud.XXXXXX")
  [ -n "${cloud_work:?}" ] && [ -d "${cloud_work:?}" ] || exit 1
  cloud_root=$cloud_work/root
  trap cloud_cleanup EXIT
  echo "build-kvm-image: cloud variant of $base" >&2
  mkdir -p "${cloud_root:?}" "${cloud_work:?}/out"
  qemu-img convert -O raw "$base/base.qcow2" "${cloud_work:?}/root.img"
  mount -o loop "${cloud_work:?}/root.img" "${cloud_root:?}"
  mount -t proc proc "${cloud_root:?}/proc"
  mount -t sysfs sys "${cloud_root:?}/sys"
  mount --bind /dev "${cloud_root:?}/dev"
  mount --bind /dev/pts "${cloud_root:?}/dev/pts"
  printf '#!/bin/sh\nexit 101\n' >"${cloud_root:?}/usr/sbin/policy-rc.d"
  chmod 755 "${cloud_root:?}/usr/sbin/policy-rc.d"
  { LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "${cloud_root:?}" sh -c \
      'apt-get update -qq && apt-get install -y -qq --no-install-recommends cloud-init' >"${cloud_work:?}/apt.log" 2>&1; } ||
    { tail -n 30 "${cloud_work:?}/apt.log" >&2; exit 1; }
  mkdir -p "${cloud_root:?}/etc/cloud/cloud.cfg.d"
  # The seed is a NoCloud CD-ROM; one ed25519 host key per instance (RSA
  # generation takes seconds under emulation).
  printf '%s\n' 'datasource_list: [NoCloud, None]' 'ssh_genkeytypes: [ed25519]' >"${cloud_root:?}/etc/cloud/cloud.cfg.d/90-lab.cfg"
  rm -f "${cloud_root:?}/root/.ssh/authorized_keys" "${cloud_root:?}"/etc/ssh/ssh_host_*
  LANG=C.UTF-8 chroot "${cloud_root:?}" apt-get clean
  rm -rf "${cloud_root:?}"/var/lib/apt/lists/* "${cloud_root:?}/usr/sbin/policy-rc.d"
  cloud_unmount || exit 1
  qemu-img convert -O qcow2 "${cloud_work:?}/root.img" "${cloud_work:?}/out/base.qcow2"
  cp "$base/vmlinux" "$base/initrd.img" "${cloud_work:?}/out/"
  echo "variant=cloud of=$base built=$(date -u +%FT%TZ) seconds=$(($(date +%s) - cloud_t0))" >"${cloud_work:?}/out/done"
  rm_tree "${vdest:?}"
  mv "${cloud_work:?}/out" "${vdest:?}"
  echo "build-kvm-image: cloud variant done in $(($(date +%s) - cloud_t0)) s: $vdest" >&2
  echo "${vdest:?}" >&3
}

# cloud_unmount undoes the variant's mounts (the image, then /proc, /sys,
# /dev and /dev/pts of the host inside it), innermost first; only under its
# own work directory (never a bare /dev or /proc). It fails when anything
# stays mounted there.
cloud_unmount() {
  [ -n "${cloud_root:-}" ] || return 0
  unmount_below "${cloud_root:?}"
}

# cloud_cleanup deletes the variant's work directory, unless something is
# still mounted below it: then it leaves it, saying so (deleting it would
# walk into the host's /dev).
cloud_cleanup() {
  [ -n "${cloud_work:-}" ] && [ -d "${cloud_work:?}" ] || return 0
  if ! unmount_below "${cloud_work:?}"; then
    echo "build-kvm-image: $cloud_work left in place: unmount what is listed above, then delete it" >&2
    return 1
  fi
  rm_tree "${cloud_work:?}"
}

out=/var/cache/lab-kvm
suite=bookworm
pubkey=
cloud=
while getopts "o:k:s:ch" opt; do
  case $opt in
    o) out=$OPTARG ;;
    k) pubkey=$OPTARG ;;
    s) suite=$OPTARG ;;
    c) cloud=1 ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
  esac
done
if [ -n "$cloud" ]; then
  build_cloud_variant
  exit 0
fi
# Standard output carries the result directory alone: keep it on fd 3 and send
# everything else, including any tool that writes to stdout (mkfs.ext4 prints
# "Creating regular file …" even with -q), to stderr.
exec 3>&1 1>&2

[ -n "$pubkey" ] || { echo "build-kvm-image: -k PUBKEY is required (the key lab's ssh{} block uses)" >&2; exit 2; }
[ -r "$pubkey" ] || { echo "build-kvm-image: cannot read $pubkey" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "build-kvm-image: needs root (debootstrap, chroot)" >&2; exit 1; }
for c in debootstrap qemu-img mkfs.ext4 sha256sum xz flock; do
  command -v "$c" >/dev/null || { echo "build-kvm-image: $c not found (apt-get install debootstrap qemu-utils e2fsprogs xz-utils)" >&2; exit 1; }
done

# mirror prints the first deb URI in this machine's apt sources that serves
# the suite (deb822 .sources files, then one-line sources.list files).
mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk -v suite="$suite" '
      function flush() { if (deb && hit && uri != "") { print uri; found = 1; exit } deb = 0; hit = 0; uri = "" }
      /^[[:space:]]*$/ { flush(); next }
      /^#/ { next }
      tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
      END { if (!found) flush() }' "$f" | head -n1
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    awk -v suite="$suite" '$1 == "deb" {
        i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i+1) == suite) { print $i; exit } }' "$f"
  done
}
url=$(mirror | head -n1)
[ -n "$url" ] || { echo "build-kvm-image: no 'deb' source for $suite in /etc/apt/sources.list{,.d}" >&2; exit 1; }

packages=systemd-sysv,udev,openssh-server,ethtool,iproute2,procps,zstd
# Installed in the chroot, with update-initramfs diverted (see "kernel" below).
chroot_packages="linux-image-amd64 initramfs-tools iperf3"
# The cache key: this script, the key, the suite and the package lists. The
# mirror is left out on purpose (any mirror of the suite builds the same guest).
hash=$( { cat "$0"; cat "$pubkey"; echo "$suite $packages $chroot_packages"; } | sha256sum | cut -c1-16)
dest=$out/$suite-$hash
mkdir -p "$out"
# One build at a time per cache: a second caller (CI's early build in the
# background, then TestKVM's harness) waits for the first and takes its
# result from the cache instead of building the same image beside it.
wait_for_build_lock "$out/.build.lock"
if [ -f "${dest:?}/done" ]; then
  echo "${dest:?}" >&3
  exit 0
fi

work=$(mktemp -d "$out/.build.XXXXXX")
root=$work/root
# cleanup unmounts what the build mounted in the chroot (and anything
# debootstrap left mounted there when it was interrupted), then deletes the
# work directory; while something stays mounted below it, it is left in
# place, never deleted.
cleanup() {
  [ -n "${work:-}" ] && [ -d "${work:?}" ] || return 0
  if ! unmount_below "${work:?}"; then
    echo "build-kvm-image: $work left in place: unmount what is listed above, then delete it" >&2
    return 1
  fi
  rm_tree "${work:?}"
}
trap cleanup EXIT
log() { echo "build-kvm-image: $* (${t0:+$(($(date +%s) - t0)) s, }load $(cut -d' ' -f1 /proc/loadavg))" >&2; }

t0=$(date +%s)
log "debootstrap $suite from $url"
debootstrap --variant=minbase --include="$packages" "$suite" "${root:?}" "$url" >"${work:?}/debootstrap.log" 2>&1 ||
  { tail -n 30 "${work:?}/debootstrap.log" >&2; exit 1; }

mount -t proc proc "${root:?}/proc"
mount -t sysfs sys "${root:?}/sys"
mount --bind /dev "${root:?}/dev"
mount --bind /dev/pts "${root:?}/dev/pts"
in_root() { LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "${root:?}" "$@"; }

# Nothing starts inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"${root:?}/usr/sbin/policy-rc.d"
chmod 755 "${root:?}/usr/sbin/policy-rc.d"

# The kernel: installed here, not by debootstrap, with update-initramfs
# diverted to a stub that does nothing, so that the one initramfs is built
# once, below, with this image's configuration. Otherwise two full ones
# are built and thrown away (12 minutes each at load 25): the kernel's
# postinst runs /etc/kernel/postinst.d/initramfs-tools, which calls
# `update-initramfs -c -k VERSION`, and initramfs-tools' trigger (its
# postinst, "triggered") calls `update-initramfs -u`. update-initramfs.conf's
# update_initramfs=no would stop only the second: update-initramfs checks
# it in update (-u), not in create (-c) — initramfs-tools 0.142,
# update-initramfs create()/update(); the conf file's own comment: "If set
# to no disables any update to initramfs beside kernel upgrade".
# iperf3 asks whether to start a daemon: answer no before installing it.
log "kernel, initramfs-tools, iperf3 (update-initramfs diverted)"
echo "iperf3 iperf3/start_daemon boolean false" | in_root debconf-set-selections
in_root dpkg-divert --local --rename --divert /usr/sbin/update-initramfs.lab-real --add /usr/sbin/update-initramfs >/dev/null
printf '#!/bin/sh\necho "update-initramfs $*: skipped (diverted by build-kvm-image.sh)" >&2\n' >"${root:?}/usr/sbin/update-initramfs"
chmod 755 "${root:?}/usr/sbin/update-initramfs"
# shellcheck disable=SC2086 # a list of package names
in_root apt-get install -y -qq --no-install-recommends $chroot_packages >"${work:?}/apt.log" 2>&1 ||
  { tail -n 30 "${work:?}/apt.log" >&2; exit 1; }
rm -f "${root:?}/usr/sbin/update-initramfs"
in_root dpkg-divert --local --rename --divert /usr/sbin/update-initramfs.lab-real --remove /usr/sbin/update-initramfs >/dev/null
[ -x "${root:?}/usr/sbin/update-initramfs" ] || { log "update-initramfs missing after the install"; exit 1; }
for f in "${root:?}"/boot/initrd.img-*; do
  if [ -e "$f" ]; then log "$f was built during the install: the diversion of update-initramfs did not hold"; exit 1; fi
done

log "configure"
echo lab-guest >"${root:?}/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 lab-guest\n' >"${root:?}/etc/hosts"
echo '/dev/vda / ext4 defaults,noatime 0 0' >"${root:?}/etc/fstab" # no fsck: every guest's disk is a fresh overlay

# DHCP on every Ethernet NIC; the client id is the MAC so the host's lease
# table is searchable by MAC.
mkdir -p "${root:?}/etc/systemd/network"
cat >"${root:?}/etc/systemd/network/20-lab-dhcp.network" <<'EOF'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
LinkLocalAddressing=no
IPv6AcceptRA=no

[DHCPv4]
ClientIdentifier=mac
UseDomains=no
EOF
in_root systemctl enable systemd-networkd.service >/dev/null 2>&1
for u in systemd-networkd-wait-online.service apt-daily.timer apt-daily-upgrade.timer \
  e2scrub_reap.service e2scrub_all.timer fstrim.timer dpkg-db-backup.timer systemd-tmpfiles-clean.timer \
  getty@tty1.service serial-getty@ttyS0.service getty-static.service systemd-update-utmp.service \
  systemd-update-utmp-runlevel.service systemd-journal-catalog-update.service systemd-journal-flush.service \
  systemd-hwdb-update.service ldconfig.service systemd-pstore.service systemd-random-seed.service \
  systemd-network-generator.service systemd-sysusers.service kmod-static-nodes.service \
  modprobe@configfs.service modprobe@dm_mod.service modprobe@drm.service modprobe@efi_pstore.service \
  modprobe@fuse.service modprobe@loop.service dev-hugepages.mount dev-mqueue.mount sys-kernel-debug.mount \
  sys-kernel-tracing.mount sys-fs-fuse-connections.mount sys-kernel-config.mount; do
  in_root systemctl mask "$u" >/dev/null 2>&1 || true
done

# systemd's generators for what this guest does not have: each is a
# process run before any unit starts (1-2 s of TCG together). The fstab
# generator (the root mount) stays.
mkdir -p "${root:?}/etc/systemd/system-generators"
for g in cryptsetup debug getty gpt-auto hibernate-resume integritysetup rc-local run system-update sysv veritysetup; do
  ln -sf /dev/null "${root:?}/etc/systemd/system-generators/systemd-$g-generator"
done

# Drivers udev would load for the pc machine's devices a benchmark guest
# does not use: seconds of the one vCPU under TCG, before networkd runs.
cat >"${root:?}/etc/modprobe.d/lab-blacklist.conf" <<'EOF'
blacklist floppy
blacklist ata_piix
blacklist ata_generic
blacklist pata_acpi
blacklist i2c_piix4
blacklist pcspkr
blacklist uhci_hcd
blacklist ehci_hcd
blacklist cfg80211
blacklist kvm
blacklist kvm_amd
blacklist kvm_intel
blacklist powernow_k8
blacklist amd64_edac
blacklist edac_mce_amd
blacklist serio_raw
blacklist psmouse
blacklist evdev
blacklist joydev
blacklist qemu_fw_cfg
blacklist sg
EOF
# Modules for hardware no virtual machine has.
kdir=$(echo "${root:?}"/usr/lib/modules/*/kernel)
for d in sound drivers/gpu drivers/media drivers/infiniband drivers/net/wireless drivers/staging drivers/bluetooth \
  drivers/iio drivers/isdn drivers/mmc drivers/mtd drivers/nfc net/wireless net/mac80211 net/bluetooth; do
  rm -rf "${kdir:?}/$d"
done
in_root depmod -a "$(basename "$(dirname "${kdir:?}")")"

# SSH: root with the key only; host keys made at first boot, per guest.
install -d -m 700 "${root:?}/root/.ssh"
install -m 600 "$pubkey" "${root:?}/root/.ssh/authorized_keys"
cat >"${root:?}/etc/ssh/sshd_config.d/lab.conf" <<'EOF'
PermitRootLogin prohibit-password
PasswordAuthentication no
UseDNS no
HostKey /etc/ssh/ssh_host_ed25519_key
# No PAM: its account and session modules (motd scripts, limits, env
# files) ran for every login and command, ~0.3 s each under TCG. Root's
# password is "*" (no password, not locked), so key login works without it.
UsePAM no
# VERBOSE logs each TCP connection ("Connection from"): BenchmarkKVMBoot
# tells lab's wait for the guest from sshd's own handshake with it.
LogLevel VERBOSE
EOF
rm -f "${root:?}"/etc/ssh/ssh_host_*
in_root ssh-keygen -q -t ed25519 -N '' -C lab-guest -f /etc/ssh/ssh_host_ed25519_key
# The config is checked here, once, not by an `sshd -t` before every
# start (another sshd exec on the way to SSH-ready, ~0.3 s under TCG).
mkdir -p "${root:?}/run/sshd" && in_root /usr/sbin/sshd -t && rmdir "${root:?}/run/sshd"
# sshd -r: no re-exec of sshd for every connection. The listener's fork
# serves the connection itself instead of executing /usr/sbin/sshd again
# (loading its libraries, config and host key) before it even logs the
# connection: that exec was most of the time from lab's first SYN to
# sshd's "Connection from" under TCG (BenchmarkKVMBoot's slack). What -r
# gives up is a fresh address-space layout per connection, which a
# throwaway benchmark guest reached only from lab's own network can spare.
mkdir -p "${root:?}/etc/systemd/system/ssh.service.d"
printf '[Service]\nExecStartPre=\nExecStart=\nExecStart=/usr/sbin/sshd -D -r $SSHD_OPTS\n' >"${root:?}/etc/systemd/system/ssh.service.d/lab.conf"
in_root systemctl enable ssh.service >/dev/null 2>&1

# Every guest is a new machine: systemd makes a machine id at boot.
: >"${root:?}/etc/machine-id"
rm -f "${root:?}/var/lib/dbus/machine-id"

# A small initrd with just what a virtio disk boot needs.
log "initrd"
sed -i 's/^MODULES=.*/MODULES=list/; s/^#\?COMPRESS=.*/COMPRESS=zstd/' "${root:?}/etc/initramfs-tools/initramfs.conf"
# virtio_rng seeds the kernel's random pool early (sshd waits for it).
printf 'virtio_pci\nvirtio_blk\nvirtio_net\nvirtio_rng\next4\n' >>"${root:?}/etc/initramfs-tools/modules"
# No udev in the initrd: the modules above are loaded by list and devtmpfs
# makes /dev/vda; starting udevd and waiting for its coldplug to settle
# costs seconds under TCG. The real root's udev starts as usual.
cat >"${root:?}/etc/initramfs-tools/hooks/lab-no-udev" <<'EOF'
#!/bin/sh
PREREQS="udev"
prereqs() { echo "$PREREQS"; }
case "$1" in prereqs) prereqs; exit 0 ;; esac
rm -f "${DESTDIR:?}/scripts/init-top/udev" "${DESTDIR:?}/lib/systemd/systemd-udevd" "${DESTDIR:?}/bin/udevadm"
rm -rf "${DESTDIR:?}/lib/udev" "${DESTDIR:?}/etc/udev"
# What udev's init-bottom script did besides stopping udevd: hand /dev to the root.
cat >"$DESTDIR/scripts/init-bottom/udev" <<'EOS'
#!/bin/sh
[ "$1" = prereqs ] && exit 0
mount -n -o move /dev "${rootmnt:?}/dev"
EOS
chmod 755 "$DESTDIR/scripts/init-bottom/udev"
EOF
chmod 755 "${root:?}/etc/initramfs-tools/hooks/lab-no-udev"
kver=$(basename "$(dirname "${kdir:?}")")
in_root update-initramfs -c -k "$kver" >"${work:?}/initramfs.log" 2>&1 || { tail -n 30 "${work:?}/initramfs.log" >&2; exit 1; }
[ -s "${root:?}/boot/initrd.img-$kver" ] || { log "update-initramfs made no /boot/initrd.img-$kver"; exit 1; }

in_root apt-get clean
rm -rf "${root:?}"/var/lib/apt/lists/* "${root:?}"/usr/share/doc/* "${root:?}"/usr/share/man/* "${root:?}"/var/log/*.log
rm -f "${root:?}/usr/sbin/policy-rc.d"
for m in dev/pts dev sys proc; do umount "${root:?}/$m"; done
# mkfs.ext4 -d copies the tree: nothing of the host may be mounted in it.
[ -z "$(mounts_below "${root:?}")" ] || { log "still mounted in $root: $(mounts_below "${root:?}")"; exit 1; }

mkdir -p "${work:?}/out"
# The kernel uncompressed (Debian's bzImage holds an xz stream): QEMU boots
# an ELF with a PVH note directly. Without CONFIG_PVH the bzImage it is.
vmlinuz=${root:?}/boot/vmlinuz-$kver
if grep -qx 'CONFIG_PVH=y' "${root:?}/boot/config-${vmlinuz##*/vmlinuz-}"; then
  off=$(LC_ALL=C grep -abo -m1 $'\xfd7zXZ' "$vmlinuz" | head -n1 | cut -d: -f1 || true)
  [ -z "$off" ] || tail -c +$((off + 1)) "$vmlinuz" | xz -dc --single-stream >"${work:?}/out/vmlinux" 2>/dev/null || true
  [ "$(head -c 4 "${work:?}/out/vmlinux" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
    { log "no xz-compressed ELF kernel in $vmlinuz: shipping it compressed"; cp "$vmlinuz" "${work:?}/out/vmlinux"; }
else
  log "kernel without CONFIG_PVH: shipping it compressed"
  cp "$vmlinuz" "${work:?}/out/vmlinux"
fi
cp "${root:?}/boot/initrd.img-$kver" "${work:?}/out/initrd.img"

log "ext4 + qcow2"
used=$(du -sm "${root:?}" | cut -f1)
size=$((used + used / 2 + 512))
mkfs.ext4 -q -L labroot -d "${root:?}" "${work:?}/root.img" "${size}M"
qemu-img convert -O qcow2 "${work:?}/root.img" "${work:?}/out/base.qcow2"
rm -f "${work:?}/root.img"
echo "suite=$suite hash=$hash mirror=$url built=$(date -u +%FT%TZ) seconds=$(($(date +%s) - t0))" >"${work:?}/out/done"

rm_tree "${dest:?}"
mv "${work:?}/out" "${dest:?}"
log "done in $(($(date +%s) - t0)) s: $dest"
echo "${dest:?}" >&3
