package usdt

var host = amd64Machine
