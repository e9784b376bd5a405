-- A management key made in the console names the member who made it (the admin CLI leaves it null).
ALTER TABLE "management_keys" ADD COLUMN "created_by_member_id" UUID;
