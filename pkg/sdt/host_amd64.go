package sdt

var host = amd64Machine
