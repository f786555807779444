"""proagent: proactive LLM agents for zero-shot coordination."""

__version__ = "0.1.0"
