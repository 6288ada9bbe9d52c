// Package jsonfile writes a record as a JSON file whole, through a
// rename, so that a reader sees the old record or the new one, never a
// part: the records sdtkit's tools keep in /run/sdtkit for a repair
// after a SIGKILL.
package jsonfile

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Write writes v as JSON, and a newline, to path, creating its directory
// (mode 0700) if need be; the file has mode 0600.
func Write(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
