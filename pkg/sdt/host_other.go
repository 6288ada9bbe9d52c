//go:build !amd64 && !arm64

package sdt

var host = machine{}
