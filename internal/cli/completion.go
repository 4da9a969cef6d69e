package cli

import "github.com/spf13/cobra"

// Words completes any argument or flag value with list, and no file names.
func Words(list ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return list, cobra.ShellCompDirectiveNoFileComp
	}
}

// First completes a command's first argument with list, and the ones
// after it as rest says.
func First(list []string, rest cobra.ShellCompDirective) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return list, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, rest
	}
}
