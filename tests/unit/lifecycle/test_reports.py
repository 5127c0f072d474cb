import json
import uuid
from datetime import datetime, timezone

from fleet_memory.model import (
    ConsolidatedUnit,
    ConsolidationReport,
    ConversationReport,
    ExtractedMemory,
    MaintenanceReport,
    MemoryType,
    PutResult,
    StoredUnit,
)

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def test_reports_serialise_to_plain_json():
    maint = MaintenanceReport(NOW, None, 3, 1, {"episodic": 2, "procedural": 1}, {"episodic": 1}, 1)
    assert json.loads(json.dumps(maint.to_dict()))["archived_by_type"] == {"episodic": 1}

    src = (uuid.uuid4(), uuid.uuid4(), uuid.uuid4())
    cons = ConsolidationReport(NOW, "a1", 5, 1, (ConsolidatedUnit(uuid.uuid4(), "a1", "text", src, ("consolidated",)),))
    data = json.loads(json.dumps(cons.to_dict()))
    assert data["sources"] == 3 and data["created"][0]["source_ids"] == [str(s) for s in src]

    uid = uuid.uuid4()
    conv = ConversationReport("offline", (ExtractedMemory("I prefer tea.", MemoryType.PROCEDURAL),),
                              (PutResult(uuid.uuid4(), (StoredUnit(uid, "I prefer tea."),)),))
    data = json.loads(json.dumps(conv.to_dict()))
    assert data["unit_ids"] == [str(uid)] and data["memories"][0]["memory_type"] == "procedural"
