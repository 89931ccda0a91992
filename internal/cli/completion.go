package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
)

// bashCompletion and zshCompletion are urfave/cli v2's autocomplete
// scripts (autocomplete/bash_autocomplete, zsh_autocomplete) with the
// program name fixed to de. They ask de itself for the candidates through
// its hidden --generate-bash-completion flag.
const bashCompletion = `# bash completion for de; load with: source <(de completion bash)
_de_bash_autocomplete() {
  if [[ "${COMP_WORDS[0]}" != "source" ]]; then
    local cur opts requestComp
    COMPREPLY=()
    cur="${COMP_WORDS[COMP_CWORD]}"
    if [[ "$cur" == "-"* ]]; then
      requestComp="${COMP_WORDS[*]:0:$COMP_CWORD} ${cur} --generate-bash-completion"
    else
      requestComp="${COMP_WORDS[*]:0:$COMP_CWORD} --generate-bash-completion"
    fi
    opts=$(eval "${requestComp}" 2>/dev/null)
    COMPREPLY=($(compgen -W "${opts}" -- ${cur}))
    return 0
  fi
}
complete -o bashdefault -o default -o nospace -F _de_bash_autocomplete de
`

const zshCompletion = `#compdef de
# zsh completion for de; load with: source <(de completion zsh)
_de_zsh_autocomplete() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _de_zsh_autocomplete de
`

func completionCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Completes commands, flags and stage names (de start FLK-BYO/<TAB>).
   bash:  source <(de completion bash)        (or add that line to ~/.bashrc)
   zsh:   source <(de completion zsh)         (or add it to ~/.zshrc)
   fish:  de completion fish | source         (or save it to ~/.config/fish/completions/de.fish)`,
		BashComplete: func(c *ucli.Context) {
			fmt.Fprintln(c.App.Writer, "bash\nzsh\nfish")
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("de completion takes one shell: bash, zsh or fish")
			}
			switch sh := c.Args().First(); sh {
			case "bash":
				fmt.Fprint(io.Stdout, bashCompletion)
			case "zsh":
				fmt.Fprint(io.Stdout, zshCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return fmt.Errorf("fish completion: %w", err)
				}
				fmt.Fprint(io.Stdout, script)
			default:
				return fmt.Errorf("unknown shell %q: de completion knows bash, zsh and fish", sh)
			}
			return nil
		},
	}
}

// completeStages prints every ready stage's reference, one a line, for
// commands whose argument is a stage (start, solution, flink). Once a stage is
// typed it offers nothing more.
func completeStages(c *ucli.Context) {
	if c.NArg() > 0 {
		return
	}
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		return
	}
	var refs []string
	for _, st := range cat.Ready() {
		refs = append(refs, st.Ref())
	}
	fmt.Fprintln(c.App.Writer, strings.Join(refs, "\n"))
}
