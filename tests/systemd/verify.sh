#!/bin/sh
# Installs into a scratch PREFIX and runs `systemd-analyze verify` on the
# unit `make install` wrote.  verify exits 0 on some problems (an unknown
# Type= is only "ignoring"), so any output at all fails the test too.
# Then applies the sysusers.d and tmpfiles.d entries to a scratch root
# with the tools that apply them on a real host.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }

# PREFIX (not DESTDIR) so the paths in the unit exist: verify checks them
make -s install PREFIX="$tmp/usr" SYSCONFDIR="$tmp/etc" >/dev/null
unit="$tmp/usr/lib/systemd/system/vcpuplaced.service"

# verify also runs man(1) on Documentation='s man: page: the one installed
# beside the unit, found through MANPATH
export MANPATH="$tmp/usr/share/man"
if out=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify vcpuplaced.service"
else
	ko "systemd-analyze verify vcpuplaced.service: $out"
fi
# the check must be able to fail: a broken copy must be caught
sed 's/^Type=notify/Type=notifyy/' "$unit" > "$tmp/broken.service"
if out=$(systemd-analyze verify "$tmp/broken.service" 2>&1) &&
    [ -z "$out" ]; then
	ko "a broken Type= went unnoticed"
else
	ok "a broken Type= is reported"
fi
for key in "Type=notify" "WatchdogSec=" "ExecReload=/bin/kill -HUP \$MAINPID" \
    "NoNewPrivileges=yes" "ProtectSystem=strict" "ProtectHome=yes" \
    "ProtectKernelTunables=yes" "IPAddressDeny=any" \
    "CapabilityBoundingSet=CAP_SYS_NICE" "RuntimeDirectory=vcpuplace"; do
	if grep -q "^$key" "$unit"; then ok "unit has $key"; else ko "unit lacks $key"; fi
done
if grep -q "^ExecStart=$tmp/usr/sbin/vcpuplaced " "$unit"; then
	ok "ExecStart points at the installed daemon"
else
	ko "ExecStart: $(grep ExecStart= "$unit")"
fi

root="$tmp/root"
mkdir -p "$root/etc" "$root/run"
if systemd-sysusers --root="$root" \
    "$tmp/usr/lib/sysusers.d/vcpuplace.conf" 2>"$tmp/su.err" &&
    grep -q "^vcpuplace:" "$root/etc/group"; then
	ok "sysusers creates group vcpuplace"
else
	ko "sysusers: $(cat "$tmp/su.err")"
fi
if systemd-tmpfiles --root="$root" --create \
    "$tmp/usr/lib/tmpfiles.d/vcpuplace.conf" 2>"$tmp/tf.err" &&
    [ "$(stat -c %a "$root/run/vcpuplace")" = 750 ] &&
    [ "$(stat -c %G "$root/run/vcpuplace")" != root ]; then
	ok "tmpfiles creates /run/vcpuplace 0750, group vcpuplace"
else
	ko "tmpfiles: $(cat "$tmp/tf.err")"
fi
echo "systemd: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
