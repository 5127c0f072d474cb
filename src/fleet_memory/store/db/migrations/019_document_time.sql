-- The documents of an agent by the time they were put: a put's context reads the people of what was
-- said lately, and a unit that names an earlier date ("We reported it in January, the letting agent
-- came") carries that date, not the day it was said, so its document's time finds it.
CREATE INDEX documents_event_idx ON documents (agent_id, event_date);
