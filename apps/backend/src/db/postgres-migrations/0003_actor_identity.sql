ALTER TABLE "audit_log" ADD COLUMN "actor_email" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "actor_email" text;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "key_id" text;