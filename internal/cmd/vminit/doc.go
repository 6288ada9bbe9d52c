// Vminit is the init of the kernel matrix's guests: internal/cmd/vmtest
// builds it, static, into each guest's initramfs as /init.
//
// It mounts what a tracer expects (proc, sysfs, devtmpfs, tracefs,
// debugfs, bpffs, cgroup2, a tmpfs on /tmp), loads the kernel modules
// the plan names, mounts the host's root over 9p when the plan shares it
// (its /usr and /etc then serve the guest, so that programs linked with
// the host's libc, gcc included, run), runs the attach checks and the
// go test binaries of the plan (internal/vmcheck.Plan, read from
// /vmtest/plan.json), prints one result line per check on the console,
// then "vmtest-done", and reboots, which ends qemu started with
// -no-reboot.
//
// Run as anything but pid 1 it runs the checks and exits instead, for a
// try on the host. "vminit burst N ITERATIONS FIXTURE" starts N
// processes of FIXTURE at once and waits for them: the command the burst
// checks give sdtattach -f -c.
package main
