package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newCeilingCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "ceiling RESULT.json...",
		Short: "Set a latency-bound run's fixed windows beside a client that costs nothing",
		Long: `Reads the output of "radoscp-bench run --json" for a scenario with an
injected OSD delay and prints, for each fixed window, the copy's measured
time beside the model's (ceiling.go): a client costing nothing under
Ceph's delayed delivery, fitted to the run's window 1. "OSDs as at
window 1" keeps the OSDs' time per copy fixed; "as measured" adds how
much the median copy's wait grew at that window. Where the model and the
measurement agree, the model's speed-up is the ceiling of the window's.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			results, err := readResults(args)
			if err != nil {
				return err
			}
			for _, r := range results {
				if err := writeFit(cmd.OutOrStdout(), r); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// fitRow is one fixed window's copy time: measured, and the model's median
// with the OSDs as fast as at window 1 and as measured at this window.
type fitRow struct {
	window                    int
	measured, model, asLoaded float64
}

// modelFit is fitRow for every fixed window r measured; nil when the model
// cannot be fitted to r.
func modelFit(r benchResult) []fitRow {
	var rows []fitRow
	for _, row := range r.Rows {
		if row.Mode != "offload" {
			continue
		}
		one, wide, ok := fitModel(r, row.Window)
		if !ok {
			return nil
		}
		rows = append(rows, fitRow{window: row.Window, measured: row.Seconds,
			model: medianDraws(one, row.Window), asLoaded: medianDraws(wide, row.Window)})
	}
	return rows
}

// medianDraws is the model's median copy time at window over modelDraws
// draws.
func medianDraws(m delayModel, window int) float64 {
	t := make([]float64, modelDraws)
	for d := range t {
		t[d] = m.copySeconds(window, modelDraw(d, 2))
	}
	slices.Sort(t)
	return t[len(t)/2]
}

func writeFit(w io.Writer, r benchResult) error {
	rows := modelFit(r)
	if rows == nil {
		return usage("%s: no model to fit: it needs an injected delay and window 1 with its copy times", r.Scenario)
	}
	fmt.Fprintf(w, "%s: %d objects, OSD replies delayed up to %g s, measured %s\n", r.Scenario, r.Objects, r.InjectDelayS, r.Machine.Date)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "window\tmeasured s\tspeed-up\tmodel s, OSDs as at window 1\tspeed-up\tmodel s, OSDs as measured\tspeed-up\tmeasured/model\t")
	one := rows[0]
	for _, f := range rows {
		fmt.Fprintf(tw, "%d\t%.3f\t%.2fx\t%.3f\t%.2fx\t%.3f\t%.2fx\t%.0f%%\t\n", f.window, f.measured, one.measured/f.measured,
			f.model, one.model/f.model, f.asLoaded, one.asLoaded/f.asLoaded, 100*f.measured/f.asLoaded)
	}
	return tw.Flush()
}
