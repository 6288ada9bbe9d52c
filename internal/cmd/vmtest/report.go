package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// A guestReport is what one guest gave.
type guestReport struct {
	guest   guest
	image   *image
	seconds float64
	results []vmcheck.Result
}

// failed says whether a check of the guest failed.
func (r *guestReport) failed() bool {
	for _, res := range r.results {
		if res.Status == vmcheck.Fail {
			return true
		}
	}
	return false
}

// archName is the arch as the kernel's people name it.
func archName(arch string) string {
	switch arch {
	case "amd64":
		return "x86-64"
	case "arm64":
		return "arm64"
	}
	return arch
}

// writeTable writes the reports as a table for people.
func writeTable(w io.Writer, reports []*guestReport) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "KERNEL\tARCH\tVCPUS\tCHECK\tRESULT\tSECONDS\tREASON")
	for _, r := range reports {
		release := "-"
		if r.image != nil {
			release = r.image.release
		}
		for _, res := range r.results {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%.1f\t%s\n", release, archName(r.guest.arch),
				r.guest.cpus, res.Check, res.Status, res.Seconds, oneLine(res.Reason))
		}
	}
	return tw.Flush()
}

// oneLine keeps a reason to one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// docHeader opens docs/kernels.md.
const docHeader = `# Kernels

The attach checks and the tests of the packages that attach, run on
Debian's kernels under qemu by ` + "`scripts/vmtest`" + ` (see ` + "`go doc ./internal/cmd/vmtest`" + `):
each kernel booted with 2 and with 16 vCPUs (TCG), an initramfs of the
static tools, ` + "`go test -c`" + ` binaries and sdtgen fixtures, and on x86-64 the
host's root shared read-only over 9p (its libc and gcc). A skip names
what the kernel lacks. This page is that script's output
(` + "`scripts/vmtest -doc docs/kernels.md`" + `); CI runs the attach
checks in the guests ` + "`scripts/vmtest -ci`" + ` names.

The checks (` + "`internal/cmd/vminit`" + `) trace fixtures that ` + "`sdtgen`" + ` wrote, whose
probes carry known values, with ` + "`sdtattach -c`" + `: ` + "`stream`" + ` checks every
value of every event (strings, every operand form), ` + "`count`" + `, ` + "`hist`" + `,
` + "`latency`" + ` and ` + "`filter`" + ` that the kernel counted every hit,
` + "`semaphores`" + ` a fixture whose probes fire only while a tracer holds
their semaphores, ` + "`pie`" + ` a static PIE, ` + "`i386`" + ` a 32-bit program, and
` + "`burst`" + ` one process per vCPU firing at once under ` + "`sdtattach -f --count`" + `,
every hit counted or reported lost, and on arm64 ` + "`ustack-dwarf`" + ` the stacks of
` + "`sdtattach --ustack=dwarf`" + ` in a program and a library built without frame
pointers by the host's cross compiler, every caller named up to ` + "`_start`" + `
(x86-64 guests check those with the host's gcc, in ` + "`pkg/attach`" + `'s tests);
a check without a suffix takes the
backend sdtattach chooses, ` + "`-bpf`" + ` and ` + "`-tracefs`" + ` force one.
` + "`go test PKG`" + ` runs a package's tests as root. A known failure is one of
sdtkit or of its tests that is being fixed: it shows as a skip naming it.
`

// writeDoc writes the reports as docs/kernels.md.
func writeDoc(w io.Writer, reports []*guestReport) error {
	var b strings.Builder
	b.WriteString(docHeader)
	b.WriteString("\n## Summary\n\n| kernel | arch | vCPUs | passed | failed | skipped | what the kernel lacks | known failures |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range reports {
		var pass, fail int
		var lacks, known []string
		for _, res := range r.results {
			switch {
			case res.Status == vmcheck.Pass:
				pass++
			case res.Status == vmcheck.Fail:
				fail++
			case strings.HasPrefix(res.Reason, "known failure: "):
				known = append(known, res.Check)
			}
			lacks = appendReason(lacks, res)
		}
		release := "not booted"
		if r.image != nil {
			release = r.image.release
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s | %s |\n", release, archName(r.guest.arch), r.guest.cpus,
			pass, fail, len(r.results)-pass-fail, mdCell(strings.Join(lacks, "; ")), mdCell(strings.Join(known, ", ")))
	}
	for _, r := range reports {
		release, pkg := "not booted", ""
		if r.image != nil {
			release, pkg = r.image.release, " ("+r.image.pkg+")"
		}
		fmt.Fprintf(&b, "\n## %s, %s, %d vCPUs\n\n", release, archName(r.guest.arch), r.guest.cpus)
		fmt.Fprintf(&b, "Debian's kernel %s%s, %.0f s from boot to the last check.\n\n", r.guest.version, pkg, r.seconds)
		b.WriteString("| check | result | reason |\n|---|---|---|\n")
		for _, res := range r.results {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", res.Check, res.Status, mdCell(res.Reason))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes s for a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

// skippedRe is how a go test check counts the tests skipped for a reason.
var skippedRe = regexp.MustCompile(`^\d+ skipped: `)

// appendReason adds what a check's skips say the kernel lacks, each
// "requires kernel ..." up to its first colon, once.
func appendReason(lacks []string, res vmcheck.Result) []string {
	for _, part := range strings.Split(res.Reason, "; ") {
		// A known failure quotes the reason in parentheses.
		part = strings.TrimPrefix(part, "(")
		if strings.Count(part, ")") > strings.Count(part, "(") {
			part = strings.TrimSuffix(part, ")")
		}
		part = skippedRe.ReplaceAllString(part, "")
		if !strings.HasPrefix(part, "requires kernel") {
			continue
		}
		why, _, _ := strings.Cut(part, ":")
		if !slices.Contains(lacks, why) {
			lacks = append(lacks, why)
		}
	}
	return lacks
}
