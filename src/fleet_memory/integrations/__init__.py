"""Memory for the agent frameworks, each through the framework's own memory seam. One module per
framework; each is an optional extra and imports its framework only when the module is imported
(``import fleet_memory`` and ``import fleet_memory.integrations`` import none of them). Importing a
module whose framework is missing raises ``extras.MissingExtraError`` naming the extra.

- ``langgraph`` (extra ``langgraph``): ``FleetMemoryStore``, a ``langgraph.store.base.BaseStore``.
- ``langchain`` (extra ``langchain``): ``FleetMemoryRetriever`` (a ``BaseRetriever``) and
  ``memory_tools`` (``StructuredTool``s).
- ``llamaindex`` (extra ``llamaindex``): ``FleetMemoryBlock``, a memory block of
  ``llama_index.core.memory.Memory``.
- ``openai_agents`` (extra ``openai-agents``): ``memory_tools`` (function tools) and
  ``with_memories`` (recalled memories in a run's instructions).
- ``pydantic_ai`` (extra ``pydantic-ai``): ``FleetMemoryToolset``, a ``FunctionToolset``.
- ``crewai`` (extra ``crewai``): ``FleetMemoryStorage``, the ``Storage`` of a crew's
  ``ExternalMemory``.

Identity: every object is bound to one fleet-memory agent and, where the framework names one, one
user; the mapping of each framework's notion (namespace, thread, user id) is in its module and in
``docs/integrations.md``. The framework-free parts are ``tools`` (remember / recall / forget) and
``items`` (the key-value items of a store).
"""
