package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/rados"
)

// jsonResult is the one line --json prints.
type jsonResult struct {
	Bytes          uint64         `json:"bytes"`
	PublishedEOF   uint64         `json:"published_eof"`
	Objects        uint64         `json:"objects"`
	Window         int            `json:"window"`
	Serial         bool           `json:"serial"`
	Fallback       bool           `json:"fallback"`
	CutBack        bool           `json:"cut_back"`
	Generation     jsonGeneration `json:"generation"`
	ElapsedSeconds float64        `json:"elapsed_seconds"`
	Error          *string        `json:"error"`
	Errno          int            `json:"errno"`
}

type jsonGeneration struct {
	Seq  uint32 `json:"seq"`
	Size uint64 `json:"size"`
}

func printResult(w io.Writer, asJSON bool, res radoscp.Result, err error) {
	if asJSON {
		out := jsonResult{
			Bytes: res.Bytes, PublishedEOF: res.PublishedEOF, Objects: res.Objects,
			Window: res.Window, Serial: res.Serial, Fallback: res.Fallback, CutBack: res.CutBack,
			Generation:     jsonGeneration{Seq: res.Generation.Seq, Size: res.Generation.Size},
			ElapsedSeconds: res.Elapsed.Seconds(),
		}
		if err != nil {
			msg := err.Error()
			out.Error = &msg
			out.Errno = int(rados.ErrnoOf(err))
		}
		b, _ := json.Marshal(out)
		fmt.Fprintln(w, string(b))
		return
	}
	rate := 0.0
	if s := res.Elapsed.Seconds(); s > 0 {
		rate = float64(res.Bytes) / s / (1 << 20)
	}
	fmt.Fprintf(w, "copied %d bytes (%d objects by copy-from) in %.3fs, %.1f MiB/s; window %d%s%s; published EOF %d\n",
		res.Bytes, res.Objects, res.Elapsed.Seconds(), rate, res.Window,
		flag(res.Serial, ", serial (into existing data)"), flag(res.Fallback, ", some data through the client"),
		res.PublishedEOF)
	if res.CutBack {
		fmt.Fprintln(w, "objects written past the published EOF were cut back")
	}
}

func flag(on bool, s string) string {
	if on {
		return s
	}
	return ""
}
