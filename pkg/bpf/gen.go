package bpf

// The generated files are committed, so that building needs no clang;
// regenerate them with go generate ./pkg/bpf/ after changing usdt.bpf.c. The
// same source gives two programs: usdt reads strings, usdtnum numbers only
// (see Options.NoStrings); usdtfault and usdtnumfault are the same,
// sleepable, faulting in memory that is not resident (see Options.NoFaults).
// usdtlean and usdtleanfault are usdt and usdtfault without room for a
// copy of the user stack in their scratch slots (Options.UStackCopy),
// which streams without one load: a third of the memory per CPU.
// usdtold, usdtnumold and aggold are built for kernels without BPF cookies,
// whose verifier refuses what the others have (see USDT_OLD in usdt.h).
// The Go types of all are those of usdt.
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -type event -type spec -type arg -type filter -type finsn usdt usdt.bpf.c -- -O2 -g -Wall -Werror
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types usdtnum usdt.bpf.c -- -O2 -g -Wall -Werror -DUSDT_STRINGS=0
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types usdtfault usdt.bpf.c -- -O2 -g -Wall -Werror -DUSDT_FAULTS=1
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types usdtlean usdt.bpf.c -- -O2 -g -Wall -Werror -DUSDT_COPY=0
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types usdtleanfault usdt.bpf.c -- -O2 -g -Wall -Werror -DUSDT_COPY=0 -DUSDT_FAULTS=1
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types usdtnumfault usdt.bpf.c -- -O2 -g -Wall -Werror -DUSDT_STRINGS=0 -DUSDT_FAULTS=1
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types -type aggprobe agg agg.bpf.c -- -O2 -g -Wall -Werror
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types usdtold usdt.bpf.c -- -O2 -g -Wall -Werror -DUSDT_OLD=1
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types usdtnumold usdt.bpf.c -- -O2 -g -Wall -Werror -DUSDT_STRINGS=0 -DUSDT_OLD=1
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types aggold agg.bpf.c -- -O2 -g -Wall -Werror -DUSDT_OLD=1
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -no-global-types stop stop.bpf.c -- -O2 -g -Wall -Werror
