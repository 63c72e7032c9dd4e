package truncate

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestLockCookieNamesThisProcess(t *testing.T) {
	h := parseLockCookie(newLockCookie())
	host, _ := os.Hostname()
	if h.PID != os.Getpid() || h.Host != strings.ReplaceAll(host, "/", "_") || time.Since(h.Since) > time.Minute {
		t.Fatalf("cookie parsed as %+v", h)
	}
	if deadHere(h) {
		t.Error("this live process is taken for dead")
	}
	if !strings.Contains(h.String(), "radoscp pid") {
		t.Errorf("holder reads %q", h)
	}
}

func TestDeadHereSeesAGonePidAndAForeignCookie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	host, _ := os.Hostname()
	gone := Holder{Host: strings.ReplaceAll(host, "/", "_"), PID: cmd.Process.Pid, Since: time.Now().Add(-time.Minute)}
	if !deadHere(gone) {
		t.Errorf("exited pid %d is not dead", gone.PID)
	}
	reused := Holder{Host: gone.Host, PID: os.Getpid(), Since: time.Now().Add(-24 * time.Hour * 365 * 30)}
	if !deadHere(reused) {
		t.Error("a pid started after the lock was taken is not taken as reused")
	}
	elsewhere := Holder{Host: "another-host", PID: 1, Since: time.Now()}
	if deadHere(elsewhere) {
		t.Error("a holder on another host cannot be checked, so is never dead")
	}
	if h := parseLockCookie("some other tool"); h.PID != 0 || deadHere(h) {
		t.Errorf("a foreign cookie parses as %+v", h)
	}
}
