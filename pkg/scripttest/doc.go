// Package scripttest provides the commands and conditions that script
// tests of programs with USDT probes add to an rsc.io/script engine:
// conditions that skip with the reason when gcc, <sys/sdt.h>, a 32-bit
// multilib, tracefs, a kernel version or a probe in a runtime is missing,
// and commands that read values out of NDJSON output, wait for what a
// background fixture reports, wait until a tracer has armed or disarmed
// a process's probe sites, attach uprobes through tracefs, write into a
// process's memory, kill a tracer at many points of its run, and compare
// sdtlist with readelf.
//
// sdtkit's own script tests (testdata/script/*.txt) run on it, and so can
// those of any project whose probes are to be checked from a Go test:
//
//	func TestScript(t *testing.T) {
//		// The scripts' $WORK directories, in a directory of their own,
//		// where KillStrays finds what a failed script left running.
//		work := t.TempDir()
//		t.Setenv("TMPDIR", work)
//		t.Cleanup(func() {
//			sdtscript.KillStrays(work)
//			if err := sdtscript.RemoveUprobes(); err != nil {
//				t.Error(err)
//			}
//		})
//		engine := &script.Engine{
//			Cmds:  scripttest.DefaultCmds(),
//			Conds: scripttest.DefaultConds(),
//		}
//		maps.Copy(engine.Cmds, sdtscript.Cmds())
//		maps.Copy(engine.Conds, sdtscript.Conds())
//		env := []string{"PATH=" + os.Getenv("PATH")}
//		scripttest.Test(t, t.Context(), engine, env, "testdata/script/*.txt")
//	}
//
// where scripttest is rsc.io/script/scripttest and sdtscript this
// package. A script then reads:
//
//	# The program fires app:start with 11.
//	[!exec:gcc] skip 'requires gcc'
//	[!sdt.h] skip 'requires sys/sdt.h (package systemtap-sdt-dev)'
//	[!root] skip 'requires root (to load BPF programs)'
//	exec gcc -o prog prog.c
//	exec sdtattach -c ./prog app:start
//	stdout '"name":"start","args":\[11\]'
//
// The commands waitsites and killduring run sdtlist, and the condition
// probe reads notes with package stapsdt: sdtlist must be on the
// script's PATH (go install github.com/sdtkit/sdtkit/cmd/...). The
// commands that change the kernel's or a process's state (uprobe, poke)
// need root; the uprobes a script adds are removed when it ends, and
// RemoveUprobes removes those of scripts that ended early.
//
// The signatures are those of rsc.io/script, which is not at version 1:
// a change there is a change here.
package scripttest
