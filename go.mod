module github.com/sdtkit/sdtkit

go 1.26.0

require (
	github.com/cilium/ebpf v0.22.0
	github.com/goccy/go-json v0.12.0
	golang.org/x/sys v0.49.0
	golang.org/x/tools v0.40.1-0.20260108161641-ca281cf95054
	rsc.io/script v0.0.2
)
