package session_test

import "github.com/sluicehq/sluice/protocol/session"

// wide has 65 wire fields, one over what the decoder tracks (a bit each in a
// uint64): the registry must refuse it.
type wide struct {
	session.Header
	F00 int `json:"f00"`
	F01 int `json:"f01"`
	F02 int `json:"f02"`
	F03 int `json:"f03"`
	F04 int `json:"f04"`
	F05 int `json:"f05"`
	F06 int `json:"f06"`
	F07 int `json:"f07"`
	F08 int `json:"f08"`
	F09 int `json:"f09"`
	F10 int `json:"f10"`
	F11 int `json:"f11"`
	F12 int `json:"f12"`
	F13 int `json:"f13"`
	F14 int `json:"f14"`
	F15 int `json:"f15"`
	F16 int `json:"f16"`
	F17 int `json:"f17"`
	F18 int `json:"f18"`
	F19 int `json:"f19"`
	F20 int `json:"f20"`
	F21 int `json:"f21"`
	F22 int `json:"f22"`
	F23 int `json:"f23"`
	F24 int `json:"f24"`
	F25 int `json:"f25"`
	F26 int `json:"f26"`
	F27 int `json:"f27"`
	F28 int `json:"f28"`
	F29 int `json:"f29"`
	F30 int `json:"f30"`
	F31 int `json:"f31"`
	F32 int `json:"f32"`
	F33 int `json:"f33"`
	F34 int `json:"f34"`
	F35 int `json:"f35"`
	F36 int `json:"f36"`
	F37 int `json:"f37"`
	F38 int `json:"f38"`
	F39 int `json:"f39"`
	F40 int `json:"f40"`
	F41 int `json:"f41"`
	F42 int `json:"f42"`
	F43 int `json:"f43"`
	F44 int `json:"f44"`
	F45 int `json:"f45"`
	F46 int `json:"f46"`
	F47 int `json:"f47"`
	F48 int `json:"f48"`
	F49 int `json:"f49"`
	F50 int `json:"f50"`
	F51 int `json:"f51"`
	F52 int `json:"f52"`
	F53 int `json:"f53"`
	F54 int `json:"f54"`
	F55 int `json:"f55"`
	F56 int `json:"f56"`
	F57 int `json:"f57"`
	F58 int `json:"f58"`
	F59 int `json:"f59"`
	F60 int `json:"f60"`
	F61 int `json:"f61"`
	F62 int `json:"f62"`
	F63 int `json:"f63"`
	F64 int `json:"f64"`
}

func (*wide) MessageType() string { return "bad/wide" }
