"""What the LLM engines share, one module per job: `prompt` (what the model is shown), `answer`
(its schema and the checks that turn what it proposed into Proposals), `incremental_json`
(proposals out of a half-streamed answer), `streaming` (cancellation, retries) and `run` (the
dream they all run). The prompt text and the answer schema are data files in `prompts/`."""
