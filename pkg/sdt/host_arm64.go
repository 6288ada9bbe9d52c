package sdt

var host = arm64Machine
