"""Memory for the agent frameworks, each through the framework's own memory seam. One module per
framework; each is an optional extra and imports its framework only when the module is imported
(``import fleet_memory`` and ``import fleet_memory.integrations`` import none of them). Importing a
module whose framework is missing raises ``extras.MissingExtraError`` naming the extra.

==============  =====================  ===============================================================
module          extra                  seam
==============  =====================  ===============================================================
langgraph       fleet-memory[langgraph]  ``FleetMemoryStore``: a ``langgraph.store.base.BaseStore``
langchain       fleet-memory[langchain]  ``FleetMemoryRetriever`` (``BaseRetriever``), ``memory_tools``
llamaindex      fleet-memory[llamaindex] ``FleetMemoryBlock`` for ``llama_index.core.memory.Memory``
openai_agents   fleet-memory[openai-agents] ``memory_tools`` (function tools), ``with_memories``
pydantic_ai     fleet-memory[pydantic-ai]   ``FleetMemoryToolset`` (a ``FunctionToolset``)
==============  =====================  ===============================================================

Identity: every object is bound to one fleet-memory agent and, where the framework names one, one
user; the mapping of each framework's notion (namespace, thread, user id) is in its module and in
``docs/integrations.md``. The framework-free parts are ``tools`` (remember / recall / forget) and
``items`` (the key-value items of a store).
"""
