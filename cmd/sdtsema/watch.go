package main

import "github.com/sdtkit/sdtkit/pkg/process"

// watchExit sends pid on exited once process pid exits, until stop is
// called. exited must have room, so that the watcher never blocks.
func watchExit(pid int, exited chan<- int) (stop func()) {
	ch, stopWatch := process.WatchExit(pid)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			exited <- pid
		case <-done:
		}
	}()
	return func() {
		stopWatch()
		close(done)
	}
}
