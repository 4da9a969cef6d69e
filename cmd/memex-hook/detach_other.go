//go:build !unix

package main

import "os/exec"

// detach leaves cmd as it is: the drain runs in the hook's process group.
func detach(*exec.Cmd) {}
