-- A built-in CRM record holds at most 1,000,000 bytes of properties (their JSON). Updates merge into
-- a record (json_patch), so without a bound a record grew with every update past what D1 stores in a
-- value or row (2,000,000 bytes), and the write failing then took the update's associations with it.
-- The check sits in the table itself, so it sees the merged text and aborts the whole batch (the
-- associations too) however writers race; src/db/crm.ts knows the message.
CREATE TRIGGER crm_objects_size_ai BEFORE INSERT ON crm_objects WHEN length(CAST(NEW.properties AS BLOB)) > 1000000 BEGIN
  SELECT RAISE(ABORT, 'crm record properties too large');
END;
CREATE TRIGGER crm_objects_size_au BEFORE UPDATE OF properties ON crm_objects WHEN length(CAST(NEW.properties AS BLOB)) > 1000000 BEGIN
  SELECT RAISE(ABORT, 'crm record properties too large');
END;
