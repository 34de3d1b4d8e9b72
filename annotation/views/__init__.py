"""Views of the annotation app: curation, claim writing, review, answer edits and the
admins' pages (the workspace home and the paper pages, which compose the stages, are in
`workspace`)."""
