// Package gateway is a client of the OpenClaw gateway's WebSocket RPC (the
// protocol OpenClaw's own CLI, web UI and apps use), for OpenClaw 2026.1.30
// (protocol 3) and 2026.9.x (protocol 4), plus where a gateway is and with
// which credentials to reach it.
//
//   - Dial: the handshake (challenge → connect, protocol 3..4 negotiated,
//     client "cli"/"cli", a shared token or password, and a device identity
//     of our own when a 2026.9 gateway is not on loopback).
//   - Client.Call / CallFinal: requests matched to responses by id (they
//     arrive out of order; `agent` answers twice), per-call deadlines from the
//     context, any number of concurrent callers, bounded frame sizes.
//   - Client.Subscribe: the gateway's events (chat, agent, tick, ...).
//   - Typed helpers (methods.go) that build version-aware params: both
//     versions reject unknown fields, so a field one version lacks is never
//     sent to it.
//   - Resolve (endpoint.go): the gateway URL and credentials from flags,
//     environment and openclaw.json, the way OpenClaw's CLI finds them.
//   - Contexts (contexts.go): named gateways kept in the user config dir.
//   - LocalLive (detect.go): is a gateway running for this state dir?
//
// Errors are *apperr.Error (exit codes: unreachable, handshake or protocol
// failure 10; credentials refused or pairing required 3; a call timing out
// 5) wrapping a *RPCError when the gateway answered with one. Secrets never
// appear in an error, a log line or output.
package gateway
