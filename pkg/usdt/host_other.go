//go:build !amd64 && !arm64

package usdt

var host = machine{}
