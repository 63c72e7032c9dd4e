package radoscp

import "fmt"

// Pins are a copy's source pins started ahead of the copy (StartPins), so
// that a caller with round trips of its own to make first (taking the
// destination's copy lock) makes them while the pins' stats run. The
// copy's instant T is then the moment the last of these pins returned,
// possibly before the copy starts; the promise is the same (see pins).
type Pins struct {
	p           *pins
	off, length uint64
}

// StartPins starts pinning what Copy(ctx, src, srcOff, dst, dstOff,
// length, o) pins, ahead of it; pass the result in o.Pins to that Copy,
// which uses them and ends them. A caller that does not run the copy
// calls Halt. nil when o does not pin (PinSource unset) or there is
// nothing to copy. dstSerial says whether the copy will write into
// existing data (dstOff before the destination's EOF), which decides how
// wide the pins run.
func (e *Engine) StartPins(src Source, srcOff, length uint64, o Options, dstSerial bool) *Pins {
	if !o.PinSource || length == 0 {
		return nil
	}
	return &Pins{p: startPins(src, srcOff, length, pinWindow(src, length, o, dstSerial)), off: srcOff, length: length}
}

// Halt stops pins a copy will not use, waiting for the stats in flight.
// nil halts nothing.
func (p *Pins) Halt() {
	if p != nil {
		p.p.halt()
	}
}

// pinWindow is the window the pins of a copy run ahead of: its own, or
// for an automatic window the widest it may grow to.
func pinWindow(src Source, length uint64, o Options, serial bool) int {
	if serial {
		return 1
	}
	if o.Auto {
		return maxWindow(src, length, o)
	}
	return max(o.Window, 1)
}

// use returns the pins of a copy of [srcOff, srcOff+length) of src: p's
// if they were started for it, else fresh ones. Pins started for another
// copy are a caller's mistake, refused before anything is written.
func (p *Pins) use(src Source, srcOff, length uint64, o Options, serial bool) (*pins, error) {
	if p == nil {
		return startPins(src, srcOff, length, pinWindow(src, length, o, serial)), nil
	}
	same := p.off == srcOff && p.length == length && p.p.src.Layout == src.Layout &&
		p.p.src.Objects.Ref(p.p.objectName(0)) == src.Objects.Ref(src.Names.ObjectName(p.p.first))
	if !same {
		p.Halt()
		return nil, fmt.Errorf("pins started for bytes [%d, %d) of %s, not for this copy's [%d, %d)",
			p.off, p.off+p.length, p.p.src.Objects.Ref(p.p.objectName(0)), srcOff, srcOff+length)
	}
	return p.p, nil
}
