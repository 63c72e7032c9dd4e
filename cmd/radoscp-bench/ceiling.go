package main

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/radoscp/radoscp"
)

// delayModel is the latency-bound scenarios as Ceph's injected delay makes
// them, with a client that costs nothing: what no client can beat, so the
// ceiling of a window's speed-up. It is the bound against which radoscp's
// window is judged, not a stand-in for a measurement.
//
// The client sends each request the moment it may; the request reaches its
// OSD at once, and the OSD answers after service seconds (statService for
// a stat), however many requests it holds. The client's messenger delays
// every reply the way ms_inject_delay does (AsyncConnection's
// DelayedDelivery, read in Ceph's source): on arrival a reply queues on
// its connection and starts a timer of its own, drawn uniformly from
// [0, maxDelay); whenever one of a connection's timers fires, the oldest
// reply queued on it is delivered. So replies leave a connection in the
// order they came, at the times their timers give.
//
// The client is radoscp's, pinned: it stats the sources radoscp.PinWidth at a time
// in object order, submits the copy-froms in object order, the first
// window of them (at most PinWidth) at once and each later one once its
// own pin and every pin below it are in, and keeps up to window of them
// in flight, a place freed as soon as a copy's reply is delivered.
type delayModel struct {
	objects     int
	osds        int     // connections; objects are placed on them at random
	maxDelay    float64 // seconds
	service     float64 // an OSD's time for one copy-from, seconds
	statService float64 // and for one stat
}

// modelOSDs is test/cluster.sh's three OSDs, each a connection of the client.
const modelOSDs = 3

// modelStatService is an OSD's time for a stat: a small metadata read.
const modelStatService = 0.0002

// copySeconds is the modelled copy's time, from its first request to its
// last copy's reply, with the delays and placements drawn from rng.
func (m delayModel) copySeconds(window int, rng *rand.Rand) float64 {
	pinAt := make([]int, m.objects)
	copyAt := make([]int, m.objects)
	for i := range m.objects {
		pinAt[i], copyAt[i] = rng.IntN(m.osds), rng.IntN(m.osds)
	}
	s := &modelSim{delay: func() float64 { return rng.Float64() * m.maxDelay }, queued: make([][]modelReply, m.osds)}
	pinned := make([]bool, m.objects)
	pinWidth := radoscp.PinWidth(window)
	var known, nextPin, pinsOut, nextCopy, copiesOut, done int
	pump := func(now float64) {
		for ; pinsOut < pinWidth && nextPin < m.objects; nextPin, pinsOut = nextPin+1, pinsOut+1 {
			s.push(modelEvent{at: now + m.statService, conn: pinAt[nextPin], reply: modelReply{obj: nextPin, stat: true}})
		}
		for ; copiesOut < window && (nextCopy < known || nextCopy < min(window, pinWidth)); nextCopy, copiesOut = nextCopy+1, copiesOut+1 {
			s.push(modelEvent{at: now + m.service, conn: copyAt[nextCopy], reply: modelReply{obj: nextCopy}})
		}
	}
	pump(0)
	for done < m.objects {
		now, r := s.next()
		if r.stat {
			pinsOut--
			pinned[r.obj] = true
			for known < m.objects && pinned[known] {
				known++
			}
		} else {
			copiesOut--
			done++
		}
		pump(now)
	}
	return s.now
}

// modelReply is a reply on its way to the client: to a stat (a pin) or to
// a copy-from, of object obj.
type modelReply struct {
	obj  int
	stat bool
}

// modelEvent is a reply arriving on connection conn at time at, or, with
// fire set, one of conn's delay timers firing.
type modelEvent struct {
	at    float64
	seq   int // ties are taken in the order pushed
	conn  int
	fire  bool
	reply modelReply
}

// modelSim is the delayed delivery's clock: events in time order, and each
// connection's replies queued for delivery.
type modelSim struct {
	delay  func() float64 // a reply's delay, seconds
	events modelEvents
	seq    int
	queued [][]modelReply
	now    float64
}

func (s *modelSim) push(e modelEvent) {
	e.seq, s.seq = s.seq, s.seq+1
	heap.Push(&s.events, e)
}

// next advances the clock to the next reply delivered to the client and
// returns it.
func (s *modelSim) next() (float64, modelReply) {
	for {
		e := heap.Pop(&s.events).(modelEvent)
		s.now = e.at
		if !e.fire {
			s.queued[e.conn] = append(s.queued[e.conn], e.reply)
			s.push(modelEvent{at: e.at + s.delay(), conn: e.conn, fire: true})
			continue
		}
		r := s.queued[e.conn][0]
		s.queued[e.conn] = s.queued[e.conn][1:]
		return s.now, r
	}
}

type modelEvents []modelEvent

func (h modelEvents) Len() int { return len(h) }
func (h modelEvents) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h modelEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *modelEvents) Push(x any)   { *h = append(*h, x.(modelEvent)) }
func (h *modelEvents) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// modelDraws is how many times the model is run for a ceiling: each draw
// new delays and placements, as each repeat of a benchmark has.
const modelDraws = 200

// ceiling is the speed-up of window over window 1, whole process, that a
// client costing nothing would reach in scenario r, as the model gives it:
// its median over modelDraws draws, and the 10th and 90th percentiles.
// Each process adds its own measured fixed cost (start, connect,
// shutdown, and for the command its checks and lock): that of mode's rows
// (offload, the engine's process, or command, radoscp cp). ok is false
// when r lacks what the fit needs (fitModel) or mode's two processes.
func ceiling(r benchResult, window int, mode string) (med, p10, p90 float64, ok bool) {
	w1, _ := find(r.Rows, mode, 1)
	ww, _ := find(r.Rows, mode, window)
	one, wide, ok := fitModel(r, window)
	if !ok || w1.ProcessSeconds <= 0 || ww.ProcessSeconds <= 0 {
		return 0, 0, 0, false
	}
	fixed1, fixedW := w1.ProcessSeconds-w1.Seconds, ww.ProcessSeconds-ww.Seconds
	ratios := make([]float64, modelDraws)
	for d := range ratios {
		ratios[d] = (one.copySeconds(1, modelDraw(d, 1)) + fixed1) / (wide.copySeconds(window, modelDraw(d, 2)) + fixedW)
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2], ratios[len(ratios)/10], ratios[len(ratios)*9/10], true
}

// modelDraw is the d-th draw's random source; stream keeps two models'
// draws apart.
func modelDraw(d int, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(uint64(d), stream)) }

// fitModel fits the model to what scenario r measured, not to what the
// model predicts: an OSD's time per copy at window 1 is what window 1's
// copy took per object less the mean delay (half the maximum); at the
// wider window it is that plus how much the median copy's wait grew (the
// OSDs, on the client's own cores here, slow as more copies reach them at
// once). one is the model at window 1's OSD time, wide at window's. ok is
// false when r lacks a delay, window 1 or window, or their copies' times.
func fitModel(r benchResult, window int) (one, wide delayModel, ok bool) {
	w1, ok1 := find(r.Rows, "offload", 1)
	ww, okW := find(r.Rows, "offload", window)
	if !ok1 || !okW || r.InjectDelayS <= 0 || r.Objects == 0 || w1.Seconds <= 0 || w1.P50ms <= 0 || ww.P50ms <= 0 {
		return one, wide, false
	}
	service := w1.Seconds/float64(r.Objects) - r.InjectDelayS/2
	if service <= 0 {
		return one, wide, false
	}
	one = delayModel{objects: r.Objects, osds: modelOSDs, maxDelay: r.InjectDelayS, service: service, statService: modelStatService}
	wide = one
	wide.service += max(ww.P50ms-w1.P50ms, 0) / 1000
	return one, wide, true
}

// ceilingNote says how close a measured speed-up of mode's window over its
// window 1 came to the model's ceiling; "" when it cannot be fitted.
func ceilingNote(r benchResult, window int, mode string, measured float64) string {
	med, p10, p90, ok := ceiling(r, window, mode)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" A client whose copy costs nothing, on OSDs as fast as measured, under the same delay and with these processes' fixed costs, would reach %.2fx (%.2fx to %.2fx, 10th to 90th percentile of %d draws of its delays; `radoscp-bench ceiling`): this is %.0f%% of it.",
		med, p10, p90, modelDraws, 100*measured/med)
}
