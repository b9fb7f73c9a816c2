### Descriptions of the tools of the tools-saas feature: github.

## github

tool-github = Work with the issues and pull requests of a GitHub repository. Choose what to do with action: list_issues, get_issue, list_pulls and get_pull read; create_issue, comment_issue and create_pull write to GitHub in the operator's name and usually need approval. The repository defaults to the one the operator configured.
tool-github-param-action = What to do: list_issues, get_issue, list_pulls, get_pull, create_issue, comment_issue or create_pull.
tool-github-param-owner = Owner of the repository (a user or an organization), such as "golang". Give it together with repo, or leave both out to use the configured repository.
tool-github-param-repo = Name of the repository, such as "go". Give it together with owner.
tool-github-param-number = Number of the issue or pull request, for get_issue, get_pull and comment_issue.
tool-github-param-state = Which items to list: "open" (the default), "closed" or "all".
tool-github-param-labels = Label names. For list_issues, only issues with all of these labels are listed; for create_issue, the new issue gets them.
tool-github-param-title = Title of the new issue or pull request.
tool-github-param-body = Text in Markdown: the description of a new issue or pull request, or the comment for comment_issue.
tool-github-param-head = For create_pull: the branch that holds the changes, or "owner:branch" for a branch in a fork.
tool-github-param-base = For create_pull: the branch to merge the changes into, such as "main".
tool-github-param-draft = For create_pull: open the pull request as a draft. Defaults to false.
tool-github-param-limit = Most items a list returns, from 1 to 100. The operator's limit applies when this is larger or omitted.
