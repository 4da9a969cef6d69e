// Package service builds memex's api.Service over a home's store and
// index: New gives the Local one a process uses while it holds the home,
// Locked one that opens the home for each call and releases it before
// returning (what memex mcp over stdio serves from, so that hooks and
// other commands are never locked out), and Redacting the write policy
// that every one of them applies, once, to every Add.
//
// The conformance suite in servicetest holds all of them, and api.Client
// over a server built on them, to the same answers.
package service
