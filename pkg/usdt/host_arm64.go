package usdt

var host = arm64Machine
