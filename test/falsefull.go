package test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// failsafeLine is what an OSD logs when it finds itself past its failsafe
// full ratio. The test cluster's OSDs are never near full (the tests that
// fill a pool fill a quota), so the line means the OSD's own count of
// used bytes is wrong: Ceph 16's memstore has once been seen to take it
// below zero (a raw use of 16 EiB in `ceph osd df`, "-2147483648% full"),
// after which every write to every pool is refused with ENOSPC. The tests
// running then would fail one by one naming ENOSPC; the watcher names the
// cause instead.
const failsafeLine = "full status failsafe engaged"

// logScan remembers how far each OSD log was read, so each poll reads only
// what was added since.
type logScan struct {
	offsets map[string]int64
}

// falselyFull returns a report for each OSD of dir whose log gained a
// failsafe-full line since the last call, or nil.
func (s *logScan) falselyFull(dir string) []string {
	if s.offsets == nil {
		s.offsets = map[string]int64{}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "log", "osd.*.log"))
	var found []string
	for _, log := range logs {
		line, end := firstMatchAfter(log, s.offsets[log], failsafeLine)
		s.offsets[log] = end
		if line != "" {
			found = append(found, fmt.Sprintf("%s of the test cluster %s says it is full, which the test cluster never is: "+
				"its count of used bytes is wrong (see `ceph osd df`: a raw use larger than the OSD; a Ceph memstore fault, "+
				"not radoscp's), and every write to its pools now fails with ENOSPC; %s:\n%s",
				strings.TrimSuffix(filepath.Base(log), ".log"), dir, log, line))
		}
	}
	return found
}

// firstMatchAfter returns the first whole line of path after offset that
// contains what, and the offset of the end of the last whole line read. A
// log that shrank (a restarted daemon's new log) is read from its start.
func firstMatchAfter(path string, offset int64, what string) (string, int64) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < offset {
		offset = 0
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "", offset
	}
	r := bufio.NewReaderSize(f, 64<<10)
	match := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return match, offset // a partial last line is read again next time
		}
		offset += int64(len(line))
		if match == "" && strings.Contains(line, what) {
			match = strings.TrimSpace(line)
		}
	}
}
